import { randomBytes } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { newCheckoutId } from '../../../src/checkout/checkout-record';
import { AppError, type ErrorCode } from '../../../src/errors';
import { queuePrefix } from '../../../src/redis/keyspace';
import { closeRedis, createRedis, type ConnectorConnection } from '../../../src/redis/redis';
import { QUEUES } from '../../../src/jobs/queue-names';
import { jobOutcomeFor } from '../../../src/jobs/run-processor';
import { runCliCaptured } from '../../support/cli';
import { eventually } from '../../support/harness';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * `connector notifications retry --since --until [--shop] [--code]`: the operator's replay of a
 * window of the failed set (Svix's "recover"). It lists what it retries, then retries exactly
 * those; more than 100 only with --yes.
 */
describe('notifications retry of a window', () => {
  let redis: TestRedis;
  let connection: ConnectorConnection;
  let queue: Queue;
  const prefix = `r${randomBytes(4).toString('hex')}`;
  const env = () => ({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix });
  /** Each job's error code, by job id: the worker fails it with that code. */
  const codes = new Map<string, ErrorCode>();

  /** Adds finish jobs of `shop`, failing with `code`, and waits until all of them failed. */
  async function failing(count: number, code: ErrorCode, shop?: string): Promise<string[]> {
    const ids = Array.from({ length: count }, () => `finish-${newCheckoutId(shop)}`);
    for (const id of ids) codes.set(id, code);
    await queue.addBulk(
      ids.map((jobId) => ({
        name: 'finish',
        data: { checkoutId: jobId.slice('finish-'.length), kind: 'finish', shop },
        opts: { jobId },
      })),
    );
    await eventually(async () => {
      const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
      return states.every((state) => state === 'failed') ? true : undefined;
    });
    return ids;
  }

  /** A moment strictly after every failure so far (the failed set's times are in ms). */
  async function mark(): Promise<Date> {
    const at = Date.now();
    await eventually(() => (Date.now() > at ? true : undefined));
    return new Date(at + 1);
  }

  const stateOf = (ids: string[]) => Promise.all(ids.map((id) => queue.getJobState(id)));

  let before: string[];
  let rejected: string[];
  let unavailable: string[];
  let removedShop: string[];
  let after: string[];
  let since: Date;
  let until: Date;
  let worker: Worker;

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = createRedis(redis.url, 'worker', 'test');
    const queuing = { connection, prefix: queuePrefix(prefix, QUEUES.notifications) };
    queue = new Queue(QUEUES.notifications, queuing);
    // Each job fails for good with its code, as the connector's processor words it.
    worker = new Worker(
      QUEUES.notifications,
      async (job: Job) => {
        const error = new AppError(codes.get(job.id ?? '') ?? 'INTERNAL', 'refused', {
          retryable: false,
        });
        throw jobOutcomeFor(error, job).thrown;
      },
      { ...queuing, concurrency: 10 },
    );
    before = await failing(3, 'PLATFORM_REJECTED');
    since = await mark();
    rejected = await failing(2, 'PLATFORM_REJECTED');
    unavailable = await failing(1, 'PLATFORM_UNAVAILABLE');
    // A shop no registry holds: listed as removed, never one of the env shop's.
    removedShop = await failing(1, 'PLATFORM_REJECTED', 'acme');
    until = await mark();
    after = await failing(2, 'PLATFORM_REJECTED');
    // Retried jobs wait: nothing runs them again here.
    await worker.close();
  }, 60_000);
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await closeRedis(connection);
    await redis.close();
  });

  it('lists, then retries exactly the window of one shop and one code; then the rest of it', async () => {
    const first = await runCliCaptured(
      [
        'notifications',
        'retry',
        '--since',
        since.toISOString(),
        '--until',
        until.toISOString(),
        '--shop',
        'default',
        '--code',
        'PLATFORM_REJECTED',
      ],
      env(),
    );
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const lines = first.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      `2 failed deliveries from ${since.toISOString()} to ${until.toISOString()} of shop default, PLATFORM_REJECTED:`,
    );
    expect(
      lines
        .slice(1, 3)
        .map((line) => line.trim().split(/\s+/)[0])
        .sort(),
    ).toEqual([...rejected].sort());
    expect(lines[1]).toContain('PLATFORM_REJECTED: refused');
    expect(lines[3]).toBe('retrying 2 failed deliveries');
    expect(await stateOf(rejected)).toEqual(['waiting', 'waiting']);
    for (const others of [before, unavailable, removedShop, after])
      expect(new Set(await stateOf(others))).toEqual(new Set(['failed']));

    // The rest of the window, any shop, any code.
    const rest = await runCliCaptured(
      ['notifications', 'retry', '--since', since.toISOString(), '--until', until.toISOString()],
      env(),
    );
    expect(rest).toMatchObject({ code: 0, stderr: '' });
    expect(rest.stdout).toContain('acme (removed)');
    expect(rest.stdout.trim().split('\n').at(-1)).toBe('retrying 2 failed deliveries');
    expect(await stateOf([...unavailable, ...removedShop])).toEqual(['waiting', 'waiting']);
    expect(new Set(await stateOf([...before, ...after]))).toEqual(new Set(['failed']));

    // Nothing left in it.
    const none = await runCliCaptured(
      ['notifications', 'retry', '--since', since.toISOString(), '--until', until.toISOString()],
      env(),
    );
    expect(none.stdout).toMatch(/^no failed deliveries from /);
  });

  it.each([
    [['--since', 'yesterday'], 'not a time: yesterday'],
    [['--since', '1h', '--code', 'NOPE'], 'not an error code: NOPE'],
    [['--since', '1h', '--until', '2h'], '--until must be after --since'],
    [['--all', '--since', '1h'], 'give a job id, --all or --since (one of them)'],
    [['--all', '--code', 'PLATFORM_REJECTED'], '--until, --code and --yes go with --since'],
  ])('refuses %j as a usage error (exit 2), retrying nothing', async (args, message) => {
    const failed = await queue.getFailedCount();
    const run = await runCliCaptured(['notifications', 'retry', ...args], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(await queue.getFailedCount()).toBe(failed);
  });
});

describe('notifications retry of a window of more than 100', () => {
  let redis: TestRedis;
  let connection: ConnectorConnection;
  let queue: Queue;
  const prefix = `y${randomBytes(4).toString('hex')}`;
  const env = () => ({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix });
  const COUNT = 101;

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = createRedis(redis.url, 'worker', 'test');
    const queuing = { connection, prefix: queuePrefix(prefix, QUEUES.notifications) };
    queue = new Queue(QUEUES.notifications, queuing);
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
    const worker = new Worker(
      QUEUES.notifications,
      async (job: Job) => {
        throw jobOutcomeFor(new AppError('PLATFORM_REJECTED', '400', { retryable: false }), job)
          .thrown;
      },
      { ...queuing, concurrency: 20 },
    );
    try {
      await eventually(async () => ((await queue.getFailedCount()) === COUNT ? true : undefined));
    } finally {
      await worker.close();
    }
  }, 60_000);
  afterAll(async () => {
    await queue.close();
    await closeRedis(connection);
    await redis.close();
  });

  it('lists them and retries none without --yes (exit 1); with --yes, all of them', async () => {
    const refused = await runCliCaptured(['notifications', 'retry', '--since', '1h'], env());
    expect(refused.code).toBe(1);
    expect(refused.stdout.trim().split('\n')).toHaveLength(COUNT + 1);
    expect(refused.stderr).toContain(
      '101 deliveries is more than 100: nothing retried; run again with --yes to retry them all',
    );
    expect(await queue.getFailedCount()).toBe(COUNT);

    const done = await runCliCaptured(['notifications', 'retry', '--since', '1h', '--yes'], env());
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout.trim().split('\n').at(-1)).toBe(`retrying ${COUNT} failed deliveries`);
    expect(await queue.getFailedCount()).toBe(0);
    expect(await queue.getWaitingCount()).toBe(COUNT);
  });
});
