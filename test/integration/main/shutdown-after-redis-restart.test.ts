import { once } from 'node:events';
import { Redis } from 'ioredis';
import { ConnectorRedis, createRedis, redisOptions } from '../../../src/redis/redis';
import { startHarness } from '../../support/harness';
import { startTestRedis } from '../../support/redis-server';
import { disconnectWhileReconnecting } from '../../support/redis-topology';

describe('graceful shutdown', () => {
  it('completes within its deadline right after Redis restarted', async () => {
    const exits: number[] = [];
    // The default deadline (15 s), which leaves the workers 13 s: right after a restart a worker
    // may close only when BullMQ's watchdog ends a blocking read the restart left hanging, up to
    // 11 s later (its 10 s cap on a read while delayed jobs wait, plus 1 s). Seen under a CPU
    // hog with an 8 s deadline: closed by the fallback instead, still within the deadline.
    const h = await startHarness({
      start: { exit: (code) => void exits.push(code) },
      privateRedis: true,
    });
    try {
      await h.redis.stop();
      await h.redis.start();
      await h.connector.shutdown.run('test');
      // Past its deadline a shutdown exits 1 and says so: neither happened.
      expect(exits).toEqual([]);
      const messages = h.log.entries().map((e) => e.message);
      expect(messages).toContain('shutdown complete');
      expect(messages).not.toContain('shutdown timed out, exiting');
      // The workers closed by themselves, not by the fallback that drops their connections.
      expect(messages.filter((m) => String(m).startsWith('workers did not close'))).toEqual([]);
    } finally {
      await h.stop();
    }
  }, 60_000);

  it('ends a connection that is waiting to reconnect, and rejects what it queued', async () => {
    const redis = await startTestRedis({ private: true });
    const client = createRedis(redis.url, 'worker', 'ending');
    client.on('error', () => undefined);
    try {
      await once(client, 'ready');
      const copy = client.duplicate();
      copy.on('error', () => undefined);
      await once(copy, 'ready');
      await redis.stop();
      // events.once would reject on the 'error' of a refused reconnect: listen by hand.
      await new Promise((resolve) => copy.once('reconnecting', resolve));
      expect(await disconnectWhileReconnecting(copy)).toBe('Connection is closed.');
    } finally {
      client.disconnect();
      await redis.close();
    }
  });
});

describe("ioredis's socket timeout", () => {
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

  /** Closes a client while a command waits on its socket; how many timers it leaves behind. */
  async function timersLeftBy(client: Redis): Promise<number> {
    client.on('error', () => undefined);
    await once(client, 'ready');
    const before = timers();
    // Blocks forever in Redis: the socket timeout is armed and no answer ever clears it.
    const pending = client.blpop(`no-such-list-${Date.now()}`, 0).catch(() => undefined);
    const ended = once(client, 'end');
    client.disconnect();
    await ended;
    await pending;
    return timers() - before;
  }

  it('goes with the socket on a connection of ours, where plain ioredis keeps it', async () => {
    const redis = await startTestRedis();
    try {
      const options = { ...redisOptions(redis.url, 'worker', 'timer'), socketTimeout: 60_000 };
      // ioredis itself: the timer outlives the socket (it would hold an exiting process for a
      // minute, or destroy the next socket after a reconnect). When this fails, ioredis fixed it.
      const plain = new Redis(options);
      expect(await timersLeftBy(plain)).toBe(1);
      clearTimeout(
        (plain as unknown as { socketTimeoutTimer?: NodeJS.Timeout }).socketTimeoutTimer,
      );
      expect(await timersLeftBy(new ConnectorRedis(options))).toBe(0);
    } finally {
      await redis.close();
    }
  });
});
