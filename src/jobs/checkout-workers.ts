import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { expireCheckout } from '../checkout/expire-checkout';
import { abandonCheckout, produceCheckout } from '../checkout/produce-checkout';
import { deliverNotification } from '../delivery/deliver-notification';
import { notificationRetryDelayMs } from '../delivery/retry-schedule';
import { AppError } from '../errors';
import { runWithLogContext } from '../infra/log-context';
import { errorFields, type Logger } from '../infra/logger';
import { classifyStatus } from '../platform/answer-classification';
import { expireJobSchema, notificationJobSchema, produceJobSchema, QUEUES } from './queue-names';

/** A short, secret-free reason for a cancel, from whatever stopped the checkout. */
function abandonReason(error: unknown): string {
  if (error instanceof AppError) return `checkout could not be produced (${error.code})`;
  return 'checkout could not be produced (INTERNAL)';
}

/** Whether a retry can help: transient answers, and misconfiguration a person may fix. */
function worthRetrying(error: unknown): boolean {
  if (!(error instanceof AppError)) return true;
  if (error.retryable) return true;
  return (
    error.upstreamStatus !== undefined && classifyStatus(error.upstreamStatus) === 'misconfigured'
  );
}

function isFinalAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

function inJobContext<T>(
  job: Job,
  requestId: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  return runWithLogContext({ jobId: job.id, queue: job.queueName, requestId }, fn);
}

export interface WorkerOptions {
  /** Options, not a client: BullMQ then owns its connections and closes them. */
  connection: ConnectionOptions;
  prefix: string;
  notifyBackoffMs: number;
  logger: Logger;
  concurrency?: number;
}

/** The checkout and notification workers; processors stay thin over the use cases. */
export function startCheckoutWorkers(deps: CheckoutDeps, options: WorkerOptions): Worker[] {
  const { logger } = options;
  const checkoutWorker = new Worker(
    QUEUES.checkout,
    async (job) => {
      if (job.name === 'expire') {
        const data = expireJobSchema.parse(job.data);
        return inJobContext(job, data.requestId, () => expireCheckout(deps, data.checkoutId));
      }
      const data = produceJobSchema.parse(job.data);
      return inJobContext(job, data.requestId, async () => {
        try {
          return await produceCheckout(deps, data.checkoutId, data.jobKey);
        } catch (error) {
          if (worthRetrying(error) && !isFinalAttempt(job)) throw error;
          logger.error('checkout abandoned', {
            checkoutId: data.checkoutId,
            ...errorFields(error),
          });
          await abandonCheckout(deps, data.checkoutId, abandonReason(error));
          throw new UnrecoverableError(abandonReason(error));
        }
      });
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 10,
    },
  );

  const notificationWorker = new Worker(
    QUEUES.notifications,
    async (job) => {
      const data = notificationJobSchema.parse(job.data);
      return inJobContext(job, data.requestId, async () => {
        try {
          await deliverNotification(deps, data);
        } catch (error) {
          if (worthRetrying(error)) throw error;
          throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
        }
      });
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 10,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) => {
          const scheduled = notificationRetryDelayMs(attemptsMade, options.notifyBackoffMs);
          const asked = error instanceof AppError ? error.retryAfterMs : undefined;
          return asked === undefined ? scheduled : Math.max(scheduled, Math.min(asked, 3_600_000));
        },
      },
    },
  );

  for (const worker of [checkoutWorker, notificationWorker]) {
    worker.on('error', (error) =>
      logger.warn('worker connection error', { queue: worker.name, errMessage: error.message }),
    );
    worker.on('failed', (job, error) => {
      const final = job
        ? job.attemptsMade >= (job.opts.attempts ?? 1) || error instanceof UnrecoverableError
        : true;
      logger.log(
        final ? 'error' : 'warn',
        final ? 'job failed for good' : 'job failed, will retry',
        {
          queue: worker.name,
          jobId: job?.id,
          attemptsMade: job?.attemptsMade,
          errMessage: error.message,
        },
      );
    });
  }
  return [checkoutWorker, notificationWorker];
}
