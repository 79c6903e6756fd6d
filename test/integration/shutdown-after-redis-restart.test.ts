import { once } from 'node:events';
import { createRedis } from '../../src/infra/redis';
import { startHarness } from '../support/harness';
import { startTestRedis } from '../support/redis-server';

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
      const queued = copy.get('k').then(
        () => 'answered',
        (error: Error) => error.message,
      );
      const ended = new Promise((resolve) => copy.once('end', resolve));
      copy.disconnect();
      await ended;
      expect(copy.status).toBe('end');
      expect(await queued).toBe('Connection is closed.');
    } finally {
      client.disconnect();
      await redis.close();
    }
  });
});
