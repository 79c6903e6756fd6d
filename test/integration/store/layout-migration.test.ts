import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeRedis, createRedis, type RedisCommands } from '../../../src/redis/redis';
import { queuePrefix, syncLedgerKey } from '../../../src/redis/keyspace';
import { eventually, startHarness, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';
import { runCliCaptured } from '../../support/cli';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/**
 * The upgrade, on data the previous release wrote: test/fixtures/layout-v1.json holds every key
 * it left in Redis (DUMP payloads) with work in flight: service 1001 open with its URL sent, 1002
 * paid with its finish retrying, 1003 declined with its cancel in the failed set, 1004 reported
 * and synced to the ERP.
 */
interface Fixture {
  keys: Array<{ key: string; pttl: number; value: string }>;
}
const fixture = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'layout-v1.json'), 'utf8'),
) as Fixture;
const PREFIX = 'connector';

describe('connector migrate: from the previous release layout', () => {
  let redis: TestRedis;
  let client: RedisCommands;
  let h: Harness | undefined;

  beforeAll(async () => {
    // The previous release's prefix is the default one: a Redis of this file's own.
    redis = await startTestRedis({ private: true });
    client = createRedis(redis.url, 'worker', 'migration-test');
    for (const { key, pttl, value } of fixture.keys) {
      await client.restore(key, pttl > 0 ? pttl : 0, Buffer.from(value, 'base64'));
    }
  });
  afterAll(async () => {
    await h?.stop();
    await closeRedis(client);
    await redis.close();
  });

  const env = () => ({ REDIS_URL: redis.url, QUEUE_PREFIX: PREFIX });
  const start = () =>
    startHarness({
      redis,
      env: {
        QUEUE_PREFIX: PREFIX,
        ERP_SINK: 'directory',
        ERP_EXPORT_DIR: mkdtempSync(path.join(tmpdir(), 'migrated-erp-')),
      },
    });

  // One story, in the order an operator lives it (tests of a file run in a random order).
  it('refuses the old layout, moves it whole, and completes the work in flight', async () => {
    // The new release refuses to start on the old layout, naming the command that moves it.
    await expect(start()).rejects.toThrow(/run "npx connector migrate"/);

    // migrate moves every key, keeps what they hold, and says so; a second run moves nothing.
    const ledgerBefore = await client.hgetall(`${PREFIX}:sync:fp`);
    expect(Object.keys(ledgerBefore)).toEqual(['1004']);

    const dry = await runCliCaptured(['migrate', '--dry-run'], env());
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^would move \d+ keys/);
    expect(await client.exists(`${PREFIX}:chk-due`)).toBe(1);

    const run = await runCliCaptured(['migrate'], env());
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const [moved, kept] = run.stdout.split('\n');
    expect(moved).toBe(dry.stdout.replace('would move', 'moved').trimEnd());
    // The records with an outcome, moved, are kept as long as the current release keeps them
    // (those whose outcome is not 180 days old yet: the fixture ages).
    const records = await client.keys(`{${PREFIX}:shop:default}:chk:*`);
    let young = 0;
    for (const key of records) {
      const outcome = await client.hget(key, 'outcome');
      const at = outcome
        ? ((await client.hget(key, `at_${outcome}`)) ?? (await client.hget(key, 'updatedAt')))
        : null;
      if (at && Date.parse(at) + 180 * 86_400_000 > Date.now()) young += 1;
    }
    expect(kept).toBe(
      young === 0
        ? ''
        : `kept ${young} checkout records 180 days after their outcome (CHECKOUT_RETENTION_DAYS)`,
    );
    // Nothing of the old layout is left, and every key is under a tag of the prefix.
    const left = await client.keys('*');
    expect(left.length).toBe(fixture.keys.length);
    expect(left.filter((key) => !key.startsWith(`{${PREFIX}:`))).toEqual([]);
    expect(await client.hgetall(syncLedgerKey(PREFIX, 'default'))).toEqual(ledgerBefore);

    const again = await runCliCaptured(['migrate'], env());
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toMatch(/^nothing to migrate/);

    // The new release starts, and completes the work in flight.
    h = await start();
    const { simulator } = h;
    const store = h.connector.deps.store;
    const calls = (endpoint: 'finish-checkout' | 'cancel-checkout', serviceId: number) =>
      simulator.accepted(endpoint).filter((call) => call.serviceId === serviceId);

    // The finish that was retrying when the old release stopped is delivered.
    const paid = await store.latestForService(1002);
    expect(paid?.state).toBe('paid');
    await eventually(() => calls('finish-checkout', 1002)[0], WAIT_DEADLINE_MS, 'finish of 1002');
    expect(calls('finish-checkout', 1002)[0]?.body).toEqual({
      service_id: 1002,
      transaction_id: paid?.transactionId,
    });

    // The open checkout is still payable on its page, and its payment reaches the platform.
    const open = await store.latestForService(1001);
    expect(open?.state).toBe('url_sent');
    // Its URL names the old process's port; a deployment's PUBLIC_URL stays the same.
    const pageUrl = `${h.url}${new URL(open?.url ?? '').pathname}`;
    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    const pay = await fetch(`${pageUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    await eventually(() => calls('finish-checkout', 1001)[0], WAIT_DEADLINE_MS, 'finish of 1001');

    // The cancel that failed for good is still in the failed set, with its service, and retries.
    const declined = await store.latestForService(1003);
    const failed = await runCliCaptured(['notifications', 'failed', '--format', 'json'], env());
    expect(failed.code).toBe(0);
    const rows = JSON.parse(failed.stdout) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      expect.objectContaining({
        id: `cancel-${declined?.checkoutId}`,
        kind: 'cancel',
        service_id: 1003,
      }),
    ]);
    expect(calls('cancel-checkout', 1003)).toEqual([]);
    const retried = await runCliCaptured(
      ['notifications', 'retry', `cancel-${declined?.checkoutId}`],
      env(),
    );
    expect(retried.code).toBe(0);
    await eventually(() => calls('cancel-checkout', 1003)[0], WAIT_DEADLINE_MS, 'cancel of 1003');

    // The reported checkout keeps its story; nothing was sent twice.
    expect((await store.latestForService(1004))?.state).toBe('reported');
    expect(calls('finish-checkout', 1004)).toEqual([]);
    await eventually(async () =>
      (await store.latestForService(1001))?.state === 'reported' ? true : undefined,
    );
    const queue = h.connector.jobs.notificationQueue;
    expect(queue.opts.prefix).toBe(queuePrefix(PREFIX, 'notifications'));
    expect(await queue.getFailedCount()).toBe(0);
  });
});
