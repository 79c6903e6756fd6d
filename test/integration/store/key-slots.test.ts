import { randomBytes } from 'node:crypto';
import { exists, getKeyIndexes } from '@ioredis/commands';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { scriptSha } from '../../../src/redis/redis-scripts';
import { ATTACH, OPEN_FOR_SERVICE, TRANSITION } from '../../../src/store/checkout-scripts';
import { layout2KeyOf } from '../../../src/store/layout-migration';
import { runCliCaptured } from '../../support/cli';
import { eventually, startHarness, type Harness } from '../../support/harness';
import { monitorRedis, type Monitored, type RedisMonitor } from '../../support/redis-monitor';
import { startTestRedis, type TestRedis } from '../../support/redis-server';
import { adminApi, openCheckoutOfNewShop } from '../../support/registry-shop';

/*
 * Cluster-safety of every command the connector sends (issue 19): on one Redis, under MONITOR
 * from before the connector starts (its startup checks included), the product's flows run (a
 * checkout paid and one declined, their story and failed set read by the CLI, a registry shop
 * added, served and removed with its data, the rate limiter counting, the queue dashboard read).
 * Each command's keys are found by Redis's own key specs (@ioredis/commands, as ioredis's
 * Cluster routes them: EVALSHA's by its numkeys) and their slots computed (cluster-key-slot):
 * every script (ours and BullMQ's), every multi-key command and every MULTI touches one slot, and
 * every key carries a hash tag that begins with QUEUE_PREFIX.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

/** The keys of one command, by Redis's key specs; none for a command that takes none. */
function keysOf([name = '', ...args]: string[]): string[] {
  const command = name.toLowerCase();
  if (!exists(command)) return [];
  return getKeyIndexes(command, args).map((index) => String(args[index]));
}

describe('every key of one script, MULTI or command shares one slot', () => {
  let h: Harness;
  let redis: TestRedis;
  let monitor: RedisMonitor;
  const seen: Monitored[] = [];

  beforeAll(async () => {
    // MONITOR sees every client's commands: a Redis of this file's own, watched from the start.
    redis = await startTestRedis({ private: true });
    monitor = await monitorRedis(redis.url);
    monitor.onCommand((command) => seen.push(command));
    h = await startHarness({
      redis,
      env: {
        ADMIN_TOKEN,
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        RATE_LIMIT_CHECKOUT_FAILURES: '2',
        DASHBOARD_USER: 'ops',
        DASHBOARD_PASSWORD: 'dashboard-password-123',
      },
      start: { produceBackoffMs: 50 },
    });
  });
  afterAll(async () => {
    await monitor?.close();
    await h?.stop();
    await redis?.close();
  });

  const press = async (url: string, button: 'pay' | 'decline') =>
    expect((await fetch(`${url}/${button}`, { method: 'POST', redirect: 'manual' })).status).toBe(
      303,
    );
  const reported = (kind: 'finish-checkout' | 'cancel-checkout', serviceId: number) =>
    eventually(() => h.simulator.accepted(kind).find((c) => c.serviceId === serviceId));
  const urlFor = (serviceId: number) => eventually(() => h.simulator.checkoutUrlFor(serviceId));

  it('through the checkout flows, the CLI, a registry shop and the limiter', async () => {
    expect((await h.simulator.requestCheckout(1001)).status).toBe(202);
    await press(await urlFor(1001), 'pay');
    await reported('finish-checkout', 1001);
    expect((await h.simulator.requestCheckout(1002)).status).toBe(202);
    await press(await urlFor(1002), 'decline');
    await reported('cancel-checkout', 1002);
    const cliEnv = { REDIS_URL: h.redis.url, QUEUE_PREFIX: h.prefix };
    expect((await runCliCaptured(['checkout', 'status', '1001'], cliEnv)).code).toBe(0);
    expect((await runCliCaptured(['notifications', 'failed'], cliEnv)).code).toBe(0);

    const admin = adminApi(h, ADMIN_TOKEN);
    const platform = { email: 'slots@shops.example.com', password: 'pw-slots', apiKey: 'key-1' };
    await openCheckoutOfNewShop(
      h,
      ADMIN_TOKEN,
      { id: 'loja-slots', name: 'Slots', platform },
      1003,
    );
    const shopUrl = await eventually(() => {
      const call = h.simulator
        .accepted('checkout-url')
        .find((c) => c.account === platform.email && c.serviceId === 1003);
      return (call?.body as { checkout_url?: string } | undefined)?.checkout_url;
    });
    await press(shopUrl, 'pay');
    await eventually(() =>
      h.simulator
        .accepted('finish-checkout')
        .find((c) => c.account === platform.email && c.serviceId === 1003),
    );
    await eventually(async () =>
      (await admin('/shops/loja-slots', { method: 'DELETE' })).status === 204 ? true : undefined,
    );
    for (let i = 0; i < 3; i++) {
      await fetch(`${h.url}/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
        body: JSON.stringify({ service_id: 1004 }),
      });
    }
    const dashboard = await fetch(`${h.url}/admin/queues/api/queues?activeQueue=notifications`, {
      headers: {
        authorization: `Basic ${Buffer.from('ops:dashboard-password-123').toString('base64')}`,
      },
    });
    expect(dashboard.status).toBe(200);
    // MONITOR reports a command once it has run: every one of the flows' has been seen.
    const probe = new Redis(h.redis.url);
    await monitor.caughtUp(probe);
    probe.disconnect();

    const problems: string[] = [];
    const slotsOf = (keys: string[]) => new Set(keys.map((key) => calculateSlot(key)));
    // Layout 1's keys are only looked for, at start, to refuse data not migrated yet.
    const untagged = (keys: string[]) =>
      keys.filter(
        (key) => !key.startsWith(`{${h.prefix}:`) && layout2KeyOf(h.prefix, key) === undefined,
      );
    // MULTI ... EXEC, per client connection: every command between shares one slot.
    const transactions = new Map<string, string[]>();
    let scripts = 0;
    for (const { args, source } of seen) {
      const name = (args[0] ?? '').toLowerCase();
      if (name === 'multi') transactions.set(source, []);
      else if (name === 'exec' || name === 'discard') {
        const keys = transactions.get(source) ?? [];
        transactions.delete(source);
        if (slotsOf(keys).size > 1) problems.push(`MULTI over slots: ${keys.join(' ')}`);
      } else {
        const keys = keysOf(args);
        transactions.get(source)?.push(...keys);
        if (/^eval/.test(name)) scripts += 1;
        if (slotsOf(keys).size > 1) problems.push(`${args[0]} over slots: ${keys.join(' ')}`);
        if (untagged(keys).length > 0) problems.push(`untagged: ${untagged(keys).join(' ')}`);
      }
    }
    expect(problems).toEqual([]);
    // The store's scripts ran, BullMQ's too: the check saw what it is about.
    const shas = new Set(
      seen.filter(({ args }) => /^evalsha$/i.test(args[0] ?? '')).map(({ args }) => args[1]),
    );
    for (const lua of [OPEN_FOR_SERVICE, ATTACH, TRANSITION])
      expect(shas).toContain(scriptSha(lua));
    expect(scripts).toBeGreaterThan(50);
  }, 90_000);
});
