import { randomBytes } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import { AppError } from '../../../src/errors';
import { closeRedis, createRedis, type ConnectorConnection } from '../../../src/redis/redis';
import { jobHandler, jobOutcomeFor, runProcessor } from '../../../src/jobs/run-processor';
import { eventually, WAIT_DEADLINE_MS } from '../../support/harness';
import { captureLog, type CapturedLog } from '../../support/log-capture';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

describe('the one processor of every queue', () => {
  let redis: TestRedis;
  let connection: ConnectorConnection;
  let queue: Queue;
  let worker: Worker;
  let log: CapturedLog;
  const lastWords: Array<{ value: number; error: string }> = [];
  const runs: number[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = createRedis(redis.url, 'worker', 'test');
    const prefix = `p${randomBytes(4).toString('hex')}`;
    log = captureLog();
    queue = new Queue('work', { connection, prefix });
    const handler = jobHandler({
      schema: z.object({
        value: z.number(),
        requestId: z.string().optional(),
        shop: z.string().optional(),
      }),
      run: async (data) => {
        runs.push(data.value);
        log.logger.info('working', { value: data.value });
        if (data.value === 1) throw new AppError('PLATFORM_UNAVAILABLE', 'platform away');
        if (data.value === 2) throw new AppError('PLATFORM_REJECTED', 'platform said 400');
        if (data.value === 3) throw new Error('a bug');
        // Redis going away under the use case, as ioredis and the replica wait say it, four
        // times: more than the job's three attempts.
        const redisFailures = runs.filter((value) => value === 5).length;
        if (data.value === 5 && redisFailures <= 4) {
          throw redisFailures % 2 === 0
            ? new Error('Connection is closed.')
            : new AppError('REDIS_UNAVAILABLE', 'No Redis replica confirmed the write.');
        }
        return data.value * 10;
      },
      onFinalFailure: async (data, error) => {
        lastWords.push({ value: data.value, error: (error as Error).message });
      },
    });
    worker = new Worker(
      'work',
      runProcessor({ compute: handler }, log.logger, { redisRetryMs: 10 }),
      {
        connection,
        prefix,
        settings: { backoffStrategy: () => 10 },
      },
    );
  });
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await closeRedis(connection);
    await redis.close();
  });

  async function settled(job: Job): Promise<Job> {
    return eventually(
      async () => {
        const state = await job.getState();
        return state === 'completed' || state === 'failed' ? queue.getJob(job.id!) : undefined;
      },
      WAIT_DEADLINE_MS,
      `job ${job.name} to settle`,
    ) as Promise<Job>;
  }
  const add = (name: string, data: unknown) =>
    queue.add(name, data, { attempts: 3, backoff: { type: 'custom' } });

  it('runs the use case with its parsed data, in the job log context', async () => {
    const job = await settled(await add('compute', { value: 4, requestId: 'req-7' }));
    expect(job.returnvalue).toBe(40);
    const line = log.entries().find((e) => e.message === 'working' && e.value === 4);
    expect(line).toMatchObject({ jobId: job.id, queue: 'work', requestId: 'req-7' });
  });

  it("stamps the job's shop on its log lines", async () => {
    const job = await settled(await add('compute', { value: 6, shop: 'acme-moveis' }));
    expect(job.returnvalue).toBe(60);
    const line = log.entries().find((e) => e.message === 'working' && e.jobId === job.id);
    expect(line).toMatchObject({ value: 6, shop: 'acme-moveis' });
  });

  it('fails a job of an unknown name for good, without retrying it', async () => {
    const job = await settled(await add('compuet', { value: 4 }));
    expect(job.failedReason).toBe('unknown job name "compuet"');
    expect(job.attemptsMade).toBe(1);
  });

  it('fails a job whose data does not fit for good, naming the field', async () => {
    const job = await settled(await add('compute', { value: 'four' }));
    expect(job.failedReason).toBe('job data does not fit "compute" at value');
    expect(job.attemptsMade).toBe(1);
  });

  it('retries a retryable error until its attempts run out, then says its last word once', async () => {
    const job = await settled(await add('compute', { value: 1 }));
    expect(job.attemptsMade).toBe(3);
    expect(runs.filter((value) => value === 1)).toHaveLength(3);
    expect(lastWords.filter((word) => word.value === 1)).toEqual([
      { value: 1, error: 'platform away' },
    ]);
    expect(job.failedReason).toBe('PLATFORM_UNAVAILABLE: platform away');
  });

  it('stops at once on an error no retry can help', async () => {
    const job = await settled(await add('compute', { value: 2 }));
    expect(job.attemptsMade).toBe(1);
    // Its code first: what `notifications retry --code` picks.
    expect(job.failedReason).toBe('PLATFORM_REJECTED: platform said 400');
    expect(lastWords.filter((word) => word.value === 2)).toHaveLength(1);
  });

  it('retries an unexpected error: the next attempt may pass', async () => {
    const job = await settled(await add('compute', { value: 3 }));
    expect(job.attemptsMade).toBe(3);
  });

  it('spends no attempt when Redis could not be reached: the job waits and runs again', async () => {
    const job = await settled(await add('compute', { value: 5 }));
    expect(job.returnvalue).toBe(50);
    expect(runs.filter((value) => value === 5)).toHaveLength(5);
    expect(job.attemptsMade).toBe(1);
    expect(lastWords.filter((word) => word.value === 5)).toEqual([]);
    const waits = log
      .entries()
      .filter((e) => e.message === 'job waits for Redis: no attempt spent');
    expect(waits).toHaveLength(4);
    expect(waits[0]).toMatchObject({ jobId: job.id, jobName: 'compute' });
  });

  it('decides from the error alone, and the attempt count', () => {
    const job = { attemptsMade: 0, opts: { attempts: 2 } };
    const rejected = new AppError('PLATFORM_REJECTED', 'no', { retryable: false });
    expect(jobOutcomeFor(rejected, job).final).toBe(true);
    expect(jobOutcomeFor(rejected, job).thrown.name).toBe('UnrecoverableError');
    const misconfigured = new AppError('PLATFORM_REJECTED', '401', { retryable: true });
    expect(jobOutcomeFor(misconfigured, job)).toEqual({ final: false, thrown: misconfigured });
    const last = jobOutcomeFor(misconfigured, { ...job, attemptsMade: 1 });
    expect(last.final).toBe(true);
    expect(last.thrown.message).toBe('PLATFORM_REJECTED: 401');
    expect(jobOutcomeFor('text', job).thrown.message).toBe('text');
  });
});
