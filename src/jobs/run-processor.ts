import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq';
import type { ZodType } from 'zod';
import type { ShopDirectory } from '../checkout/shop-directory';
import type { JobControl } from '../delivery/ports';
import { AppError } from '../errors';
import { runWithLogContext } from '../infra/log-context';
import { errorFields, type Logger } from '../infra/logger';
import { isRedisUnavailable } from '../infra/redis';

/** What every job's data may carry: the request it came from, and the shop it is of. */
export interface JobContext {
  requestId?: string;
  shop?: string;
  /** Which shop of that id queued it (none: the env shop, or a shop stored before incarnations). */
  incarnation?: string;
}

/** What the job runtime asks of the shop directory: the gate before each job, and the purge. */
export type JobShops = Pick<ShopDirectory, 'forJob' | 'purge'>;

/** What one job name runs: its data's schema, the use case, and its last word on failure. */
export interface JobHandler<T extends JobContext> {
  schema: ZodType<T>;
  /**
   * Runs the use case. Whatever it throws is retried or not by `jobOutcomeFor` alone, except a
   * job put back to wait (`waitWithoutAttempt`), which is neither a failure nor an attempt.
   */
  run(data: T, job: Job, token: string | undefined): Promise<unknown>;
  /**
   * Runs once, when the job will not be tried again (its error cannot be retried, or this was
   * its last attempt): abandon the checkout, park the delivery. Its own failure is logged.
   */
  onFinalFailure?(data: T, error: unknown): Promise<void>;
}

/** Builds a handler; typed so that `run` sees the schema's output. */
export function jobHandler<T extends JobContext>(handler: JobHandler<T>): JobHandler<T> {
  return handler;
}

/**
 * What a failed attempt leads to. An AppError says itself whether a retry can help; anything
 * else (a bug, Redis going away) is retried, since the next attempt may pass. `final` is true
 * when no attempt follows. A job that fails for good keeps, as its failed reason, its error's
 * code before its message (`PLATFORM_REJECTED: ...`): what `notifications retry --code` picks.
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

/** A failed job's reason: its error's code, then its message. */
export function failedReasonOf(error: AppError): string {
  return `${error.code}: ${error.message}`;
}

/**
 * A job's shop's collaborators, once `runProcessor` found the shop still the incarnation that
 * queued it (`ShopDirectory.forJob`, the one gate that drops a job). A shop not served here, or served
 * here as another incarnation than the job's (this process has not caught up yet), fails the
 * attempt, to be retried: never done with another shop's account, never dropped on a guess.
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
 * Puts the job back to wait until `untilMs` without spending one of its attempts (it made no
 * call worth counting: its shop's breaker is open), and ends this run. `otherwise` is thrown,
 * as a plain failed attempt, when the job has no lock token to move it with.
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

/**
 * The one processor of a queue: finds the handler of the job's name (an unknown name fails for
 * good), checks the data, stamps the log context (the job's shop included), runs the use case,
 * and on failure asks `jobOutcomeFor` whether to retry, calling the handler's last word when not.
 *
 * A failure to reach Redis (a failover, a restart) is not one of the job's attempts: those are
 * for what the job does (the platform, the provider), and a Redis failover can outlast a
 * checkout's whole fast schedule (1, 2, 4, 8 s) and abandon a checkout a customer is waiting
 * for. The job is put back to wait `redisRetryMs` and runs again, for as long as Redis is away.
 */
export function runProcessor(
  handlers: Readonly<Record<string, JobHandler<JobContext>>>,
  logger: Logger,
  options: { redisRetryMs?: number; shops?: JobShops } = {},
): Processor {
  const { shops } = options;
  /** A job of a shop that is gone: nothing done, nothing retried, what its work left purged. */
  const drop = async (data: JobContext & { shop: string }, jobName: string) => {
    logger.warn('job of a removed shop dropped: nothing done', { jobName });
    await shops?.purge(data.shop, data.incarnation ?? '');
    return 'dropped';
  };
  return async (job: Job, token?: string) => {
    const handler = Object.hasOwn(handlers, job.name) ? handlers[job.name] : undefined;
    if (!handler) throw new UnrecoverableError(`unknown job name "${job.name}"`);
    const parsed = handler.schema.safeParse(job.data);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join('.') || '(data)';
      throw new UnrecoverableError(`job data does not fit "${job.name}" at ${field}`);
    }
    const data = parsed.data;
    return runWithLogContext(
      { jobId: job.id, queue: job.queueName, requestId: data.requestId, shop: data.shop },
      async () => {
        try {
          const { shop } = data;
          if (shop !== undefined && shops) {
            const verdict = await shops.forJob(shop, data.incarnation ?? '');
            if (verdict === 'gone') return await drop({ ...data, shop }, job.name);
          }
          return await handler.run(data, job, token);
        } catch (error) {
          // Put back to wait: not an attempt, not a failure, no last word.
          if (error instanceof DelayedError) throw error;
          if (isRedisUnavailable(error)) {
            logger.warn('job waits for Redis: no attempt spent', {
              jobName: job.name,
              ...errorFields(error),
            });
            return await waitWithoutAttempt(
              job,
              token,
              Date.now() + (options.redisRetryMs ?? REDIS_RETRY_MS),
              error,
            );
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
      },
    );
  };
}
