// The test environment of every suite: Node's, and after each file a check that it left nothing
// running that keeps a process alive: a timer, a socket, a server, a child process, a pending
// request. Such a leftover fails the file that left it, by name, instead of holding a jest worker
// at the end of the run, where nothing says whose it was.
const { setTimeout } = require('node:timers');
const { TestEnvironment } = require('jest-environment-node');

/**
 * How long a clean teardown may still be closing things (a child's exit, a socket's FIN). Above
 * 5 s: a BullMQ worker whose stalled-job check met a connection error (a Redis failover, a
 * restart) sleeps 5 s (DELAY_TIME_5 in its queue-base.js, a timer nothing can cancel) before it
 * looks again and sees it was closed meanwhile; that bounded sleep is not a leak.
 */
const DRAIN_MS = 7000;
const POLL_MS = 20;

/** What keeps this process alive now (unref'd handles do not count), by kind. */
function aliveByKind() {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo())
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** The kinds alive now beyond `before`, as "Timeout x2", "TCPServerWrap"... */
function surplus(before) {
  return [...aliveByKind()]
    .filter(([kind, count]) => count > (before.get(kind) ?? 0))
    .map(([kind, count]) => {
      const extra = count - (before.get(kind) ?? 0);
      return extra > 1 ? `${kind} x${extra}` : kind;
    });
}

class LeakCheckedEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    this.aliveBefore = aliveByKind();
  }

  async teardown() {
    await super.teardown();
    const deadline = Date.now() + DRAIN_MS;
    let left = surplus(this.aliveBefore);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref());
      left = surplus(this.aliveBefore);
    }
    if (left.length > 0) {
      throw new Error(
        `this file left ${left.join(', ')} running ${DRAIN_MS / 1000} s after its last test: ` +
          'close what it opens in afterAll/afterEach, on the way out of a failure too ' +
          '(`npx jest --detectOpenHandles <file>` shows where each was made)',
      );
    }
  }
}

module.exports = LeakCheckedEnvironment;
