import { checkoutKeys } from '../../../src/store/checkout-keys';
import { RedisCheckoutStore } from '../../../src/store/redis-checkout-store';
import { closeRedis, createRedis, type RedisCommands } from '../../../src/redis/redis';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * A service's list of its checkouts (what `checkout status` and `checkout evidence` read): its
 * read writes nothing (the CLI may run as a Redis user that cannot), so the write that opens a
 * checkout keeps it to the newest 100.
 */
const PREFIX = `history-${process.pid}`;
let server: TestRedis;
let redis: RedisCommands;
beforeAll(async () => {
  server = await startTestRedis();
  redis = createRedis(server.url, 'worker', 'service-history-test');
});
afterAll(async () => {
  await closeRedis(redis);
  await server.close();
});

it("keeps a service's newest 100 checkouts, and its read writes nothing", async () => {
  const store = new RedisCheckoutStore(redis, PREFIX, 'default');
  const serviceId = 1001;
  const start = Date.parse('2026-12-01T12:00:00.000Z');
  const ids: string[] = [];
  for (let n = 0; n < 103; n++) {
    const now = new Date(start + n * 60_000);
    const checkoutId = `chk_${n.toString(16).padStart(24, '0')}`;
    ids.push(checkoutId);
    const opened = await store.openForService({
      checkoutId,
      serviceId,
      provider: 'sandbox',
      now,
      expiresAt: new Date(now.getTime() + 30_000),
      lookAt: now,
    });
    expect(opened.kind).toBe('created');
    expect((await store.transition(checkoutId, 'expired', {}, now, now)).moved).toBe(true);
  }
  const { history } = checkoutKeys(PREFIX, 'default');
  const key = history(serviceId);
  expect(await redis.zrange(key, 0, -1)).toEqual(ids.slice(3));

  // A record gone (its retention over) stays listed, and is not shown; nothing is written.
  await redis.del(checkoutKeys(PREFIX, 'default').record(ids[50]!));
  const before = await redis.zrange(key, 0, -1, 'WITHSCORES');
  const shown = await store.checkoutsOfService(serviceId);
  expect(shown.map((r) => ('checkoutId' in r ? r.checkoutId : r))).toEqual(
    ids
      .slice(3)
      .filter((id) => id !== ids[50])
      .reverse(),
  );
  expect(await redis.zrange(key, 0, -1, 'WITHSCORES')).toEqual(before);
});
