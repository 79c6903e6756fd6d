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

/**
 * Wraps the file's setTimeout and setInterval and keeps each timer with where it was made, until
 * it has run or been cleared. Counting kinds alone misses a timer of the file's own whenever one
 * of jest's own ends meanwhile, and cannot say whose a leftover is; this can. (Node's own timers,
 * a socket's, are not seen here, and are unref'd anyway.)
 */
function trackTimers(global) {
  const made = new Set();
  let pruneAt = 10_000;
  const pending = () => {
    for (const entry of made) if (entry.timer._destroyed) made.delete(entry);
    return [...made].filter(({ timer }) => timer.hasRef());
  };
  for (const name of ['setTimeout', 'setInterval']) {
    const original = global[name];
    global[name] = function tracked(...args) {
      const timer = original.apply(this, args);
      // Forgets the timers done now and then; the bound doubles while many are set at once.
      if (made.size >= pruneAt) {
        pending();
        pruneAt = Math.max(10_000, 2 * made.size);
      }
      made.add({ timer, stack: new Error(name).stack });
      return timer;
    };
  }
  return () => pending().map(({ stack }) => stack.split('\n').slice(2, 12).join('\n'));
}

/** The kinds alive now beyond `before`, and the file's own timers still set. */
function leftovers(before, ownTimers) {
  const timers = ownTimers();
  const kinds = surplus(before).filter((kind) => !kind.startsWith('Timeout'));
  if (timers.length > 0) kinds.push(timers.length > 1 ? `Timeout x${timers.length}` : 'Timeout');
  return { kinds, timers };
}

class LeakCheckedEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    this.aliveBefore = aliveByKind();
    this.ownTimers = trackTimers(this.global);
  }

  async teardown() {
    await super.teardown();
    const deadline = Date.now() + DRAIN_MS;
    let left = leftovers(this.aliveBefore, this.ownTimers);
    while (left.kinds.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref());
      left = leftovers(this.aliveBefore, this.ownTimers);
    }
    if (left.kinds.length > 0) {
      const where = left.timers.map((stack) => `a timer made\n${stack}`).join('\n');
      throw new Error(
        `this file left ${left.kinds.join(', ')} running ${DRAIN_MS / 1000} s after its last ` +
          'test: close what it opens in afterAll/afterEach, on the way out of a failure too ' +
          '(`npx jest --detectOpenHandles <file>` shows where each was made)' +
          (where ? `\n${where}` : ''),
      );
    }
  }
}

module.exports = LeakCheckedEnvironment;
