import { checkoutKeys } from '../../../src/store/checkout-keys';
import { RedisCheckoutStore } from '../../../src/store/redis-checkout-store';
import { closeRedis, createRedis, type RedisCommands } from '../../../src/redis/redis';
import { runCliCaptured } from '../../support/cli';
import { eventually, startHarness, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';
import { checkoutIdOf } from '../../support/provider-suite';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * Checkout records are kept CHECKOUT_RETENTION_DAYS (default 180) after their outcome, with the
 * provider's index that finds them from a refund's webhook; `connector migrate` gives the records
 * the previous release wrote (30 days from their last write) the same.
 */
const DAY_MS = 86_400_000;

/** A paid sandbox checkout of `serviceId` on `h`: its record and provider index keys. */
async function paidCheckout(h: Harness, serviceId: number) {
  const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(serviceId));
  const url = await eventually(() => h.simulator.checkoutUrlFor(serviceId));
  await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
  const record = await eventually(
    async () => {
      const read = await h.connector.deps.store.get(checkoutId);
      return read?.outcome === 'paid' ? read : undefined;
    },
    WAIT_DEADLINE_MS,
    'the paid outcome',
  );
  const keys = checkoutKeys(h.prefix, 'default');
  return { record: keys.record(checkoutId), ref: keys.ref('sandbox', record.providerRef!) };
}

/** The key's time to live, in days (fractional). */
const daysLeft = async (redis: RedisCommands, key: string) => (await redis.pttl(key)) / DAY_MS;

describe.each([
  ['by default', {}, 180],
  ['with CHECKOUT_RETENTION_DAYS=400', { CHECKOUT_RETENTION_DAYS: '400' }, 400],
])('a paid record is kept %s', (_, env, days) => {
  let h: Harness;
  let redis: RedisCommands;
  beforeAll(async () => {
    h = await startHarness({ env, start: { produceBackoffMs: 50 } });
    redis = createRedis(h.redis.url, 'worker', 'retention-test');
  });
  afterAll(async () => {
    await closeRedis(redis);
    await h.stop();
  });

  it(`${days} days after its outcome, and so is its provider's index`, async () => {
    const keys = await paidCheckout(h, 1021);
    for (const key of [keys.record, keys.ref]) {
      const left = await daysLeft(redis, key);
      // Written a moment ago: within an hour of the whole retention, never more.
      expect(left).toBeLessThanOrEqual(days);
      expect(left).toBeGreaterThan(days - 1 / 24);
    }
    // What this release wrote needs no migration.
    const migrate = await runCliCaptured(['migrate'], {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      ...env,
    });
    expect(migrate).toMatchObject({ code: 0, stderr: '' });
    expect(migrate.stdout).toMatch(/^nothing to migrate/);
  });
});

describe('connector migrate: the records the previous release kept 30 days', () => {
  let server: TestRedis;
  let redis: RedisCommands;
  const PREFIX = 'retention';
  const keys = checkoutKeys(PREFIX, 'default');
  const now = Date.now();
  const at = (daysAgo: number) => new Date(now - daysAgo * DAY_MS).toISOString();

  beforeAll(async () => {
    server = await startTestRedis();
    redis = createRedis(server.url, 'worker', 'retention-migrate-test');
  });
  afterAll(async () => {
    await closeRedis(redis);
    await server.close();
  });

  /** A record as the previous release left it: its fields, 30 days from its last write. */
  async function previousRecord(
    id: string,
    fields: Record<string, string>,
    writtenDaysAgo: number,
  ) {
    const key = keys.record(id);
    await redis.hset(key, {
      checkoutId: id,
      serviceId: '1001',
      provider: 'stripe',
      providerRef: `cs_${id}`,
      createdAt: at(writtenDaysAgo + 1),
      updatedAt: at(writtenDaysAgo),
      expiresAt: at(writtenDaysAgo),
      ...fields,
    });
    await redis.pexpire(key, 30 * DAY_MS - writtenDaysAgo * DAY_MS);
    await redis.set(
      keys.ref('stripe', `cs_${id}`),
      id,
      'PX',
      30 * DAY_MS - writtenDaysAgo * DAY_MS,
    );
    return key;
  }

  it('extends each record with an outcome (and its index) to the retention after the outcome', async () => {
    const paid = await previousRecord(
      'chk_00000000000000000000000a',
      { state: 'reported', outcome: 'paid', at_paid: at(10) },
      9,
    );
    // Written before the story's times: its last write stands for its outcome.
    const old = await previousRecord(
      'chk_00000000000000000000000b',
      { state: 'declined', outcome: 'declined' },
      20,
    );
    const open = await previousRecord('chk_00000000000000000000000c', { state: 'url_sent' }, 1);
    const env = { REDIS_URL: server.url, QUEUE_PREFIX: PREFIX };

    const dry = await runCliCaptured(['migrate', '--dry-run'], env);
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    expect(dry.stdout).toContain(
      'would keep 2 checkout records 180 days after their outcome (CHECKOUT_RETENTION_DAYS)',
    );
    expect(await daysLeft(redis, paid)).toBeLessThan(22);

    const run = await runCliCaptured(['migrate'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('kept 2 checkout records 180 days after their outcome');
    const within = (left: number, days: number) => {
      expect(left).toBeLessThanOrEqual(days);
      expect(left).toBeGreaterThan(days - 1 / 24);
    };
    within(await daysLeft(redis, paid), 170);
    within(await daysLeft(redis, keys.ref('stripe', 'cs_chk_00000000000000000000000a')), 170);
    within(await daysLeft(redis, old), 160);
    // An open record gets its retention at its outcome: untouched.
    within(await daysLeft(redis, open), 29);
    expect(await redis.hget(paid, 'outcome')).toBe('paid');

    // A record an incident kept longer than its index (before this release, an incident
    // extended the record alone): its index is given the record's time.
    const incident = await previousRecord(
      'chk_00000000000000000000000d',
      { state: 'reported', outcome: 'paid', at_paid: at(10) },
      9,
    );
    await redis.pexpire(incident, 300 * DAY_MS);
    const aligned = await runCliCaptured(['migrate'], env);
    expect(aligned).toMatchObject({ code: 0, stderr: '' });
    within(await daysLeft(redis, keys.ref('stripe', 'cs_chk_00000000000000000000000d')), 300);

    // Again: nothing more to do.
    const again = await runCliCaptured(['migrate'], env);
    expect(again.stdout).toMatch(/^nothing to migrate/);

    // A shorter retention never shortens what a record has.
    const shorter = await runCliCaptured(['migrate'], { ...env, CHECKOUT_RETENTION_DAYS: '30' });
    expect(shorter.stdout).toMatch(/^nothing to migrate/);
    within(await daysLeft(redis, paid), 170);
  });

  it("an incident keeps the record and its provider's index from the incident", async () => {
    const store = new RedisCheckoutStore(redis, PREFIX, 'default', { retentionMs: 40 * DAY_MS });
    const checkoutId = 'chk_0000000000000000000000e1';
    const now = new Date();
    await store.openForService({
      checkoutId,
      serviceId: 1002,
      provider: 'stripe',
      now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      lookAt: now,
    });
    await store.attachProviderCheckout(
      checkoutId,
      {
        provider: 'stripe',
        providerRef: 'cs_e1',
        url: 'https://x',
        amount: { amountMinor: 100, currency: 'BRL' },
        lines: [],
      },
      now,
      now,
    );
    const ref = keys.ref('stripe', 'cs_e1');
    // As if 39 of its 40 days had passed since the outcome.
    await redis.pexpire(keys.record(checkoutId), DAY_MS);
    await redis.pexpire(ref, DAY_MS);
    const added = await store.addIncident(
      checkoutId,
      { kind: 'chargeback', at: now.toISOString(), transactionId: 'pi_e1' },
      { provider: 'stripe', providerRef: 'cs_e1' },
    );
    expect(added).toBe('added');
    for (const key of [keys.record(checkoutId), ref]) {
      const left = await daysLeft(redis, key);
      expect(left).toBeLessThanOrEqual(40);
      expect(left).toBeGreaterThan(40 - 1 / 24);
    }
  });

  it('refuses a retention out of bounds, naming the variable (exit 78)', async () => {
    const run = await runCliCaptured(['migrate'], {
      REDIS_URL: server.url,
      QUEUE_PREFIX: PREFIX,
      CHECKOUT_RETENTION_DAYS: '7',
    });
    expect(run.code).toBe(78);
    expect(run.stderr).toContain('CHECKOUT_RETENTION_DAYS');
  });
});
