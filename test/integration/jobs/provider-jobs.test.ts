import { randomBytes } from 'node:crypto';
import type { Worker } from 'bullmq';
import { AppError } from '../../../src/errors';
import { BullmqProviderJobs, type RenewJob } from '../../../src/jobs/bullmq-provider-jobs';
import { startProviderWorker } from '../../../src/jobs/provider-workers';
import { closeRedis, createRedis, type ConnectorConnection } from '../../../src/redis/redis';
import { eventually, WAIT_DEADLINE_MS } from '../../support/harness';
import { captureLog } from '../../support/log-capture';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * The providers queue: its passes are job schedulers (one schedule however many workers start),
 * the webhook pass runs at a worker's start, and one shop's renewal of one credential is one job,
 * whoever asks for it meanwhile.
 */
describe('the providers queue', () => {
  let redis: TestRedis;
  let connection: ConnectorConnection;
  let jobs: BullmqProviderJobs;
  let worker: Worker;
  const log = captureLog();
  const ran = { renew: [] as RenewJob[], renewDue: 0, registerWebhooks: 0 };
  /** What a renewal answers, once the test says ('fail': it throws). */
  let outcome: Promise<string> = Promise.resolve('renewed');

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = createRedis(redis.url, 'worker', 'test');
    const prefix = `p${randomBytes(4).toString('hex')}`;
    jobs = new BullmqProviderJobs(connection, prefix, {
      logger: log.logger,
      eventsConnection: () => createRedis(redis.url, 'worker', 'test-events'),
    });
    worker = startProviderWorker(
      {
        renew: async (job) => {
          ran.renew.push(job);
          const answer = await outcome;
          if (answer === 'fail') throw new AppError('PROVIDER_UNAVAILABLE', 'provider away');
          return answer;
        },
        renewDue: async () => void ran.renewDue++,
        registerWebhooks: async () => void ran.registerWebhooks++,
      },
      { connection, prefix, concurrency: 1, lockDurationMs: 30_000, logger: log.logger },
    );
  });
  afterAll(async () => {
    await worker?.close();
    await jobs?.close();
    await closeRedis(connection);
    await redis?.close();
  });

  it('schedules the renewal and webhook passes once, however many workers start, and runs both', async () => {
    await jobs.schedule();
    await jobs.schedule();
    const schedulers = await jobs.queue.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.every]).sort()).toEqual([
      ['register-webhooks', 60_000],
      ['renew-due', 900_000],
    ]);
    await eventually(
      () => (ran.registerWebhooks >= 2 && ran.renewDue >= 1 ? true : undefined),
      WAIT_DEADLINE_MS,
      'the passes',
    );
  });

  it('runs one renewal of a credential however many ask for it meanwhile; each asker gets its outcome', async () => {
    let release: (answer: string) => void = () => undefined;
    outcome = new Promise((resolve) => (release = resolve));
    const asked = [1, 2, 3].map(() =>
      jobs.run<string>('acme', { reason: 'due', fingerprint: 'f1' }),
    );
    const renewing = () => ran.renew.filter((job) => job.fingerprint === 'f1');
    await eventually(() => (renewing().length > 0 ? true : undefined), WAIT_DEADLINE_MS, 'a run');
    release('renewed');
    const answers = await Promise.all(asked);
    expect(renewing()).toEqual([{ shop: 'acme', reason: 'due', fingerprint: 'f1' }]);
    expect(answers.map((answer) => answer.outcome)).toEqual(['renewed', 'renewed', 'renewed']);
    expect(answers.filter((answer) => answer.ours)).toHaveLength(1);
  });

  it("throws a failed renewal's error, its code kept", async () => {
    outcome = Promise.resolve('fail');
    await expect(jobs.run('acme', { reason: 'rejected', fingerprint: 'f2' })).rejects.toMatchObject(
      { code: 'PROVIDER_UNAVAILABLE', message: 'provider away' },
    );
  });
});
