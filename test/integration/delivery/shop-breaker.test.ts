import { randomBytes } from 'node:crypto';
import { ShopBreaker } from '../../../src/delivery/shop-breaker';
import { breakerKey } from '../../../src/redis/keyspace';
import { closeRedis, createRedis, waitForRedis } from '../../../src/redis/redis';
import { RedisShopBreakers } from '../../../src/store/redis-shop-breaker';
import { captureLog } from '../../support/log-capture';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * Each shop's circuit breaker on a real Redis, with a clock the test moves: opening after the
 * failures in a row, one probe at a time, a failed probe doubling the wait, an answer closing it,
 * two processes sharing one breaker per shop, and one shop's breaker never touching another's.
 */
describe("a shop's circuit breaker", () => {
  let redis: TestRedis;
  let client: ReturnType<typeof createRedis>;
  let prefix: string;
  const now = { ms: 1_800_000_000_000 };
  const log = captureLog();

  /** A breaker as one worker process holds it: 3 failures in a row, 1 s cool-down, no jitter. */
  const processBreaker = () =>
    new ShopBreaker(
      new RedisShopBreakers(client, prefix),
      { failures: 3, cooldownMs: 1000 },
      log.logger,
      () => now.ms,
      () => 0,
    );

  beforeAll(async () => {
    redis = await startTestRedis();
    client = createRedis(redis.url, 'producer', 'test');
    expect(await waitForRedis(client, 5000)).toBe(true);
  });
  beforeEach(() => {
    prefix = `t${randomBytes(4).toString('hex')}`;
  });
  afterAll(async () => {
    await closeRedis(client);
    await redis.close();
  });

  it('opens after the failures in a row, lets one probe through, and closes on an answer', async () => {
    const one = processBreaker();
    const other = processBreaker();
    expect(await one.admit('loja-b')).toEqual({ kind: 'go', probe: false });
    // Two failures are counted; the jobs keep their own retry schedule.
    expect(await one.failed('loja-b', false)).toBeUndefined();
    expect(await other.failed('loja-b', false)).toBeUndefined();
    // The third opens it, in both processes: every job of the shop waits a cool-down.
    const openedAt = now.ms;
    expect(await one.failed('loja-b', false)).toBe(openedAt + 1000);
    expect(await other.admit('loja-b')).toEqual({ kind: 'wait', until: openedAt + 1000 });
    expect(await one.openShops()).toEqual(['loja-b']);
    expect(log.entries()).toContainEqual(
      expect.objectContaining({ level: 'error', shop: 'loja-b', probeInMs: 1000 }),
    );
    // Another shop is not affected.
    expect(await other.admit('loja-c')).toEqual({ kind: 'go', probe: false });

    // The cool-down over: one probe, and only one, whichever process asks first.
    now.ms = openedAt + 1000;
    expect(await other.admit('loja-b')).toEqual({ kind: 'go', probe: true });
    expect(await one.admit('loja-b')).toMatchObject({ kind: 'wait' });
    // The probe fails: open again, twice as long.
    expect(await other.failed('loja-b', true)).toBe(now.ms + 2000);
    const reopenedAt = now.ms;
    // A job let in before, failing now, waits with the rest and does not stretch the wait.
    expect(await one.failed('loja-b', false)).toBe(reopenedAt + 2000);
    now.ms = reopenedAt + 1999;
    expect(await one.admit('loja-b')).toEqual({ kind: 'wait', until: reopenedAt + 2000 });

    // The next probe gets an answer: closed everywhere, and said so.
    now.ms = reopenedAt + 2000;
    expect(await one.admit('loja-b')).toEqual({ kind: 'go', probe: true });
    await one.answered('loja-b');
    expect(await client.exists(breakerKey(prefix, 'loja-b'))).toBe(0);
    expect(await other.admit('loja-b')).toEqual({ kind: 'go', probe: false });
    expect(await other.openShops()).toEqual([]);
    expect(log.entries()).toContainEqual(
      expect.objectContaining({ level: 'info', shop: 'loja-b' }),
    );

    // Closed, the cool-down starts over at 1 s the next time it opens.
    for (let i = 0; i < 2; i++) expect(await one.failed('loja-b', false)).toBeUndefined();
    expect(await one.failed('loja-b', false)).toBe(now.ms + 1000);
  });

  it('counts only failures in a row: an answer between them starts the count again', async () => {
    const breaker = processBreaker();
    await breaker.admit('loja-d');
    expect(await breaker.failed('loja-d', false)).toBeUndefined();
    expect(await breaker.failed('loja-d', false)).toBeUndefined();
    await breaker.answered('loja-d');
    expect(await breaker.failed('loja-d', false)).toBeUndefined();
    expect(await breaker.failed('loja-d', false)).toBeUndefined();
    expect(await breaker.admit('loja-d')).toEqual({ kind: 'go', probe: false });
  });

  it('never waits longer than 10 minutes between probes, however long the shop fails', async () => {
    const breaker = processBreaker();
    for (let i = 0; i < 3; i++) await breaker.failed('loja-e', false);
    const waits: number[] = [];
    for (let probe = 0; probe < 14; probe++) {
      const admission = await breaker.admit('loja-e');
      expect(admission.kind).toBe('wait');
      if (admission.kind !== 'wait') break;
      now.ms = admission.until;
      expect(await breaker.admit('loja-e')).toEqual({ kind: 'go', probe: true });
      const until = await breaker.failed('loja-e', true);
      waits.push((until ?? 0) - now.ms);
    }
    expect(waits.slice(0, 4)).toEqual([2000, 4000, 8000, 16000]);
    expect(Math.max(...waits)).toBe(600_000);
    expect(waits.at(-1)).toBe(600_000);
  });
});
