import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { expireCheckout } from '../checkout/expire-checkout';
import { abandonCheckout, produceCheckout } from '../checkout/produce-checkout';
import { reconcileCheckouts } from '../checkout/reconcile-checkouts';
import { deliverNotification } from '../delivery/deliver-notification';
import { judgeDelivery } from '../delivery/delivery-policy';
import { notificationBackoffMs } from '../delivery/retry-schedule';
import { AppError } from '../errors';
import { runWithLogContext } from '../infra/log-context';
import { errorFields, type Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { classifyStatus } from '../platform/answer-classification';
import { expireJobSchema, notificationJobSchema, produceJobSchema, QUEUES } from './queue-names';

/** A short, secret-free reason for a cancel, from whatever stopped the checkout. */
function abandonReason(error: unknown): string {
  return `checkout could not be produced (${error instanceof AppError ? error.code : 'INTERNAL'})`;
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
  /**
   * Options or a client with `maxRetriesPerRequest: null`. BullMQ closes the copies it makes for
   * blocking reads; a client passed in is shared by the workers and closed by its owner.
   */
  connection: ConnectionOptions;
  prefix: string;
  notifyBackoffMs: number;
  /** Longest a job may run before another worker may take it over. */
  lockDurationMs: number;
  /** Reconciler: checkouts untouched for this long are looked at again. */
  reconcileStaleMs: number;
  logger: Logger;
  metrics: Metrics;
  concurrency?: number;
}

function checkoutProcessor(deps: CheckoutDeps, options: WorkerOptions) {
  return async (job: Job) => {
    if (job.name === 'reconcile') {
      return reconcileCheckouts(deps, { staleMs: options.reconcileStaleMs, limit: 500 });
    }
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
        options.logger.error('checkout abandoned', {
          checkoutId: data.checkoutId,
          ...errorFields(error),
        });
        await abandonCheckout(deps, data.checkoutId, abandonReason(error));
        throw new UnrecoverableError(abandonReason(error));
      }
    });
  };
}

function notificationProcessor(deps: CheckoutDeps, options: WorkerOptions) {
  const { metrics, logger } = options;
  return async (job: Job) => {
    const data = notificationJobSchema.parse(job.data);
    return inJobContext(job, data.requestId, async () => {
      let thrown: unknown;
      let result: string | undefined;
      try {
        result = await deliverNotification(deps, data);
      } catch (error) {
        thrown = error;
      }
      const verdict = judgeDelivery(thrown);
      if (verdict.action === 'delivered') {
        metrics.notificationAttempts.inc({ kind: data.kind, result: result ?? 'delivered' });
        if (result === 'delivered')
          metrics.notificationLatency.observe(
            { kind: data.kind },
            (Date.now() - job.timestamp) / 1000,
          );
        return result;
      }
      metrics.notificationAttempts.inc({
        kind: data.kind,
        result: verdict.action === 'give_up' ? 'permanent' : verdict.answer,
      });
      if (verdict.action === 'give_up') {
        logger.error('notification refused by the platform; moved to the failed set', {
          checkoutId: data.checkoutId,
          kind: data.kind,
          reason: verdict.reason,
        });
        throw new UnrecoverableError(verdict.reason);
      }
      if (verdict.alert) {
        logger.error('platform refuses the connector: check PLATFORM_* credentials and URL', {
          checkoutId: data.checkoutId,
          kind: data.kind,
          reason: verdict.reason,
        });
      }
      throw thrown;
    });
  };
}

/** The checkout and notification workers; processors stay thin over the use cases. */
export function startCheckoutWorkers(deps: CheckoutDeps, options: WorkerOptions): Worker[] {
  const { logger } = options;
  const common = {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency ?? 10,
    lockDuration: options.lockDurationMs,
    // Look for jobs of crashed workers twice per lock period, so they are recovered soon
    // after their lock lapses.
    stalledInterval: Math.min(30_000, Math.round(options.lockDurationMs / 2)),
  };
  const checkoutWorker = new Worker(QUEUES.checkout, checkoutProcessor(deps, options), common);
  const notificationWorker = new Worker(
    QUEUES.notifications,
    notificationProcessor(deps, options),
    {
      ...common,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) =>
          notificationBackoffMs(
            attemptsMade,
            options.notifyBackoffMs,
            error instanceof AppError ? error.retryAfterMs : undefined,
          ),
      },
    },
  );

  for (const worker of [checkoutWorker, notificationWorker]) {
    worker.on('error', (error) =>
      logger.warn('worker connection error', { queue: worker.name, errMessage: error.message }),
    );
    worker.on('failed', (job, error) => {
      const final =
        !job || error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
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
