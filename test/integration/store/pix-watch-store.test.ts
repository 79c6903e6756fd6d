import { checkoutKeys } from '../../../src/store/checkout-keys';
import { RedisCheckoutStore } from '../../../src/store/redis-checkout-store';
import { closeRedis, createRedis, type RedisCommands } from '../../../src/redis/redis';
import { runCliCaptured } from '../../support/cli';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * The Pix watch in Redis: a checkout paid by Pix joins its shop's watch in the write that records
 * it paid (a card's does not); `connector migrate` puts there the paid Pix the previous release
 * recorded, whose watch is not over.
 */
const DAY_MS = 86_400_000;
// Each part its own prefix: what one writes is not the other's (the tests run in any order).
const WRITES = 'watch-writes';
const MIGRATE = 'watch-migrate';

let server: TestRedis;
let redis: RedisCommands;
beforeAll(async () => {
  server = await startTestRedis();
  redis = createRedis(server.url, 'worker', 'pix-watch-store-test');
});
afterAll(async () => {
  await closeRedis(redis);
  await server.close();
});

/** A checkout opened, attached, then moved to `to` with `method`, at `now`. */
async function checkoutPaid(id: string, serviceId: number, method: 'pix' | 'card', now: Date) {
  const store = new RedisCheckoutStore(redis, WRITES, 'default', { retentionMs: 180 * DAY_MS });
  const expiresAt = new Date(now.getTime() + 3_600_000);
  await store.openForService({
    checkoutId: id,
    serviceId,
    provider: 'pix',
    now,
    expiresAt,
    lookAt: now,
  });
  const amount = { amountMinor: 100, currency: 'BRL' };
  const attach = { provider: 'pix', providerRef: `tx${id}`, url: 'https://x', amount, lines: [] };
  await store.attachProviderCheckout(id, attach, now, now);
  return store.transition(id, 'paid', { method, transactionId: `E${id}` }, now, now);
}

describe('the Pix watch in Redis', () => {
  it('takes a checkout paid by Pix in the write that records it paid, due a day later; not a card', async () => {
    const now = new Date();
    expect(await checkoutPaid('chk_0000000000000000000000a1', 1001, 'pix', now)).toMatchObject({
      moved: true,
    });
    await checkoutPaid('chk_0000000000000000000000a2', 1002, 'card', now);
    const { watch } = checkoutKeys(WRITES, 'default');
    expect(await redis.zrange(watch, 0, -1, 'WITHSCORES')).toEqual([
      'chk_0000000000000000000000a1',
      String(now.getTime() + DAY_MS),
    ]);
  });
});

describe('connector migrate: the paid Pix of the previous release', () => {
  const keys = checkoutKeys(MIGRATE, 'default');
  const now = Date.now();
  const at = (daysAgo: number) => new Date(now - daysAgo * DAY_MS).toISOString();

  /** A record as the previous release left it: no watch. */
  async function previousRecord(id: string, fields: Record<string, string>) {
    await redis.hset(keys.record(id), {
      checkoutId: id,
      serviceId: '1001',
      provider: 'pix',
      providerRef: `tx${id}`,
      createdAt: at(101),
      updatedAt: at(1),
      expiresAt: at(100),
      ...fields,
    });
  }

  it('puts each paid Pix whose watch is not over in the watch, due at once; nothing else', async () => {
    const paid = { state: 'reported', outcome: 'paid' };
    await previousRecord('chk_0000000000000000000000b1', {
      ...paid,
      method: 'pix',
      at_paid: at(10),
    });
    // Written before the story's times: its last write stands for its payment.
    await previousRecord('chk_0000000000000000000000b2', { ...paid, method: 'pix' });
    await previousRecord('chk_0000000000000000000000b3', {
      ...paid,
      method: 'card',
      at_paid: at(10),
    });
    await previousRecord('chk_0000000000000000000000b4', {
      ...paid,
      method: 'pix',
      at_paid: at(100),
    });
    await previousRecord('chk_0000000000000000000000b5', {
      state: 'reported',
      outcome: 'expired',
      method: 'pix',
    });
    await previousRecord('chk_0000000000000000000000b6', { state: 'url_sent', method: 'pix' });
    const env = { REDIS_URL: server.url, QUEUE_PREFIX: MIGRATE };

    const dry = await runCliCaptured(['migrate', '--dry-run'], env);
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    expect(dry.stdout).toContain('would put 2 checkouts paid by Pix in the watch');
    expect(await redis.zcard(keys.watch)).toBe(0);

    const before = Date.now();
    const run = await runCliCaptured(['migrate'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('put 2 checkouts paid by Pix in the watch');
    const watched = await redis.zrange(keys.watch, 0, -1, 'WITHSCORES');
    expect(watched.filter((_, i) => i % 2 === 0).sort()).toEqual([
      'chk_0000000000000000000000b1',
      'chk_0000000000000000000000b2',
    ]);
    for (const score of watched.filter((_, i) => i % 2 === 1)) {
      expect(Number(score)).toBeGreaterThanOrEqual(before);
      expect(Number(score)).toBeLessThanOrEqual(Date.now());
    }

    // Again: nothing more; with PIX_WATCH_DAYS=5, none of them (their watch would be over).
    const again = await runCliCaptured(['migrate'], env);
    expect(again.stdout).toMatch(/^nothing to migrate/);
    await redis.del(keys.watch);
    const short = await runCliCaptured(['migrate', '--dry-run'], { ...env, PIX_WATCH_DAYS: '5' });
    expect(short.stdout).toContain('would put 1 checkouts paid by Pix in the watch');
  });
});
