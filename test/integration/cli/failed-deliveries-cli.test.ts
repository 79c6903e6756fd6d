import { queuePrefix } from '../../../src/redis/keyspace';
import { randomBytes } from 'node:crypto';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { newCheckoutId } from '../../../src/checkout/checkout-record';
import { closeRedis, createRedis, type ConnectorConnection } from '../../../src/redis/redis';
import { QUEUES } from '../../../src/jobs/queue-names';
import { runCliCaptured } from '../../support/cli';
import { eventually } from '../../support/harness';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

const COUNT = 1205;

describe('notifications failed, past a thousand', () => {
  let redis: TestRedis;
  let connection: ConnectorConnection;
  let queue: Queue;
  const prefix = `f${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = createRedis(redis.url, 'worker', 'test');
    queue = new Queue(QUEUES.notifications, {
      connection,
      prefix: queuePrefix(prefix, QUEUES.notifications),
    });
    await queue.addBulk(
      Array.from({ length: COUNT }, () => {
        const checkoutId = newCheckoutId();
        return {
          name: 'finish',
          data: { checkoutId, kind: 'finish' },
          opts: { jobId: `finish-${checkoutId}` },
        };
      }),
    );
    // The platform refuses every one of them for good.
    const worker = new Worker(
      QUEUES.notifications,
      async () => {
        throw new UnrecoverableError('The platform answered 400 to POST /payment/finish-checkout.');
      },
      { connection, prefix: queuePrefix(prefix, QUEUES.notifications), concurrency: 50 },
    );
    try {
      await eventually(
        async () => ((await queue.getFailedCount()) === COUNT ? true : undefined),
        30_000,
        'every job failed',
      );
    } finally {
      // Closed on the way out of a failure too: a worker left running keeps the test process up.
      await worker.close();
    }
  }, 60_000);
  afterAll(async () => {
    await queue.close();
    await closeRedis(connection);
    await redis.close();
  });

  const run = (args: string[]) =>
    runCliCaptured(['notifications', ...args], { REDIS_URL: redis.url, QUEUE_PREFIX: prefix });

  it('lists every failed delivery, page after page, and retries them all', async () => {
    const json = await run(['failed', '--format', 'json']);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<{ id: string; checkout_id: string }>;
    expect(rows).toHaveLength(COUNT);
    expect(new Set(rows.map((row) => row.id)).size).toBe(COUNT);
    expect(rows.every((row) => row.id === `finish-${row.checkout_id}`)).toBe(true);
    const table = await run(['failed']);
    expect(table.stdout.match(/^finish-chk_/gm)).toHaveLength(COUNT);

    // Then every one of them is sent again.
    expect(await run(['retry', '--all'])).toMatchObject({
      code: 0,
      stdout: `retrying ${COUNT} failed deliveries\n`,
    });
    expect(await queue.getFailedCount()).toBe(0);
    expect(await queue.getWaitingCount()).toBe(COUNT);
    expect(await run(['failed', '--format', 'json'])).toMatchObject({ stdout: '[]\n' });
  });
});
