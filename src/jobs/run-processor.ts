import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq';
import type { ZodType } from 'zod';
import type { ShopDirectory } from '../checkout/shop-directory';
import type { JobControl } from '../delivery/ports';
import { AppError } from '../errors';
import { runWithLogContext } from '../tracing/log-context';
import { errorFields, type Logger } from '../infra/logger';
import { isRedisUnavailable } from '../redis/redis';

/** What every job's data may carry: the request it came from, and the shop it is of. */
export interface JobContext {
  requestId?: string;
  shop?: string;
  /** Which shop of that id queued it (none: the env shop, or a shop stored before incarnations). */
  incarnation?: string;
}

export type JobShops = Pick<ShopDirectory, 'forJob' | 'purge'>;

/** What one job name runs: its data's schema, the use case, and its last word on failure. */
export interface JobHandler<T extends JobContext> {
  schema: ZodType<T>;
  /** Runs the use case; whether what it throws is retried is `jobOutcomeFor`'s alone. */
  run(data: T, job: Job, token: string | undefined): Promise<unknown>;
  /** Runs once, when the job will not be tried again (abandon the checkout, park the delivery). */
  onFinalFailure?(data: T, error: unknown): Promise<void>;
}

/** Builds a handler; typed so that `run` sees the schema's output. */
export function jobHandler<T extends JobContext>(handler: JobHandler<T>): JobHandler<T> {
  return handler;
}

/**
 * What a failed attempt leads to: an AppError says whether a retry can help; anything else is
 * retried. A job that fails for good keeps its error's code before its message as its failed
 * reason (`PLATFORM_REJECTED: ...`): what `notifications retry --code` picks.
 */
export function jobOutcomeFor(
  error: unknown,
  job: Pick<Job, 'attemptsMade' | 'opts'>,
): { final: boolean; thrown: Error } {
  if (error instanceof AppError && !error.retryable) {
    // The cause (what an upstream said) goes along for the failure's log line, not its reason.
    const thrown = Object.assign(new UnrecoverableError(failedReasonOf(error)), {
      cause: error.cause,
    });
    return { final: true, thrown };
  }
  const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (final && error instanceof AppError) {
    return {
      final,
      thrown: Object.assign(new Error(failedReasonOf(error)), { cause: error.cause }),
    };
  }
  // A retry's error goes back as it is: the retry schedule reads its Retry-After.
  return { final, thrown: error instanceof Error ? error : new Error(String(error)) };
}

export function failedReasonOf(error: AppError): string {
  return `${error.code}: ${error.message}`;
}

/**
 * A job's shop's collaborators. A shop not served here, or served as another incarnation than
 * the job's (this process has not caught up), fails the attempt, to be retried: never done with
 * another shop's account, never dropped on a guess (`ShopDirectory.forJob` alone drops).
 */
export function servedShop<T extends { settings: { incarnation: string } }>(
  shops: Pick<ShopDirectory<T>, 'cached'>,
  job: { shop: string; incarnation?: string },
): T {
  const runtime = shops.cached(job.shop);
  if (!runtime || runtime.settings.incarnation !== (job.incarnation ?? '')) {
    throw new AppError('SHOP_NOT_FOUND', `No shop "${job.shop}" of this job is served here.`);
  }
  return runtime;
}

/**
 * Puts the job back to wait until `untilMs` without spending an attempt (its shop's breaker is
 * open); `otherwise` is thrown when the job has no lock token to move it with.
 */
export async function waitWithoutAttempt(
  job: Job,
  token: string | undefined,
  untilMs: number,
  otherwise: unknown,
): Promise<never> {
  if (token === undefined) throw otherwise;
  await job.moveToDelayed(untilMs, token);
  throw new DelayedError();
}

/** The job runtime's side of `JobControl`: a job held is moved back to delayed, no attempt spent. */
export function jobControlOf(job: Job, token: string | undefined): JobControl {
  return { holdUntil: (untilMs, otherwise) => waitWithoutAttempt(job, token, untilMs, otherwise) };
}

/** How long a job that could not reach Redis waits before it runs again (no attempt spent). */
export const REDIS_RETRY_MS = 2000;

interface Attempt {
  job: Job;
  token: string | undefined;
  handler: JobHandler<JobContext>;
  data: JobContext;
}

/** The job's handler and its data, checked: an unknown name or data that does not fit fails for good. */
function attemptOf(
  handlers: Readonly<Record<string, JobHandler<JobContext>>>,
  job: Job,
  token: string | undefined,
): Attempt {
  const handler = Object.hasOwn(handlers, job.name) ? handlers[job.name] : undefined;
  if (!handler) throw new UnrecoverableError(`unknown job name "${job.name}"`);
  const parsed = handler.schema.safeParse(job.data);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || '(data)';
    throw new UnrecoverableError(`job data does not fit "${job.name}" at ${field}`);
  }
  return { job, token, handler, data: parsed.data };
}

async function runUnlessShopGone(
  { job, token, handler, data }: Attempt,
  logger: Logger,
  shops: JobShops | undefined,
): Promise<unknown> {
  const { shop } = data;
  if (shop !== undefined && shops) {
    const verdict = await shops.forJob(shop, data.incarnation ?? '');
    if (verdict === 'gone') {
      logger.warn('job of a removed shop dropped: nothing done', { jobName: job.name });
      await shops.purge(shop, data.incarnation ?? '');
      return 'dropped';
    }
  }
  return handler.run(data, job, token);
}

async function failAttempt(
  { job, token, handler, data }: Attempt,
  error: unknown,
  logger: Logger,
  redisRetryMs: number,
): Promise<never> {
  // Put back to wait: not an attempt, not a failure, no last word.
  if (error instanceof DelayedError) throw error;
  if (isRedisUnavailable(error)) {
    logger.warn('job waits for Redis: no attempt spent', {
      jobName: job.name,
      ...errorFields(error),
    });
    return waitWithoutAttempt(job, token, Date.now() + redisRetryMs, error);
  }
  const outcome = jobOutcomeFor(error, job);
  if (outcome.final && handler.onFinalFailure) {
    await handler.onFinalFailure(data, error).catch((lastWordError: unknown) =>
      logger.error('job failure handling failed', {
        jobName: job.name,
        ...errorFields(lastWordError),
      }),
    );
  }
  throw outcome.thrown;
}

/**
 * The one processor of a queue: the handler of the job's name, its data checked, run in the
 * job's log context. A failure to reach Redis spends no attempt (a failover can outlast a
 * checkout's whole fast schedule): the job waits `redisRetryMs` and runs again.
 */
export function runProcessor(
  handlers: Readonly<Record<string, JobHandler<JobContext>>>,
  logger: Logger,
  options: { redisRetryMs?: number; shops?: JobShops } = {},
): Processor {
  const redisRetryMs = options.redisRetryMs ?? REDIS_RETRY_MS;
  return async (job: Job, token?: string) => {
    const attempt = attemptOf(handlers, job, token);
    const { requestId, shop } = attempt.data;
    return runWithLogContext({ jobId: job.id, queue: job.queueName, requestId, shop }, () =>
      runUnlessShopGone(attempt, logger, options.shops).catch((error: unknown) =>
        failAttempt(attempt, error, logger, redisRetryMs),
      ),
    );
  };
}
