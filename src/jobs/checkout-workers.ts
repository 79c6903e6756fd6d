import { Worker, type ConnectionOptions } from 'bullmq';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { expireCheckout } from '../checkout/expire-checkout';
import { abandonCheckout, produceCheckout } from '../checkout/produce-checkout';
import { reconcileCheckouts } from '../checkout/reconcile-checkouts';
import { deliverNotification } from '../delivery/deliver-notification';
import { judgeDelivery } from '../delivery/delivery-policy';
import { AppError, errorMessage } from '../errors';
import { errorFields, type Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import {
  expireJobSchema,
  JOB_NAMES,
  notificationJobSchema,
  produceJobSchema,
  QUEUES,
  reconcileJobSchema,
  type NotificationJob,
} from './queue-names';
import { notificationRetrySettings, stalledIntervalFor } from './retry-schedules';
import { logWorkerEvents } from './worker-logging';
import { jobHandler, runProcessor, type JobHandler } from './run-processor';

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
  /** How often reconciler passes run. */
  reconcileIntervalMs: number;
  logger: Logger;
  metrics: Metrics;
  /** Jobs run at once per queue (WORKER_CONCURRENCY); 10 unless said. */
  concurrency?: number;
}

/** A short, secret-free reason for a cancel, from whatever stopped the checkout. */
function abandonReason(error: unknown): string {
  return `checkout could not be produced (${error instanceof AppError ? error.code : 'INTERNAL'})`;
}

type Handlers<Queue extends keyof typeof JOB_NAMES> = Record<
  (typeof JOB_NAMES)[Queue][number],
  JobHandler<{ requestId?: string }>
>;

function checkoutHandlers(deps: CheckoutDeps, options: WorkerOptions): Handlers<'checkout'> {
  return {
    produce: jobHandler({
      schema: produceJobSchema,
      run: (data) => produceCheckout(deps, data.checkoutId, data.jobKey),
      onFinalFailure: async (data, error) => {
        options.logger.error('checkout abandoned', {
          checkoutId: data.checkoutId,
          ...errorFields(error),
        });
        await abandonCheckout(deps, data.checkoutId, abandonReason(error));
      },
    }),
    expire: jobHandler({
      schema: expireJobSchema,
      run: (data) => expireCheckout(deps, data.checkoutId),
    }),
    reconcile: jobHandler({
      schema: reconcileJobSchema,
      run: async () => {
        const report = await reconcileCheckouts(deps, {
          intervalMs: options.reconcileIntervalMs,
          // Leave the rest of the interval free, so passes do not pile up.
          budgetMs: Math.round(options.reconcileIntervalMs * 0.8),
        });
        options.metrics.unreadableRecords.inc(report.unreadable);
        return report;
      },
    }),
  };
}

/** Delivers, and counts every attempt by what came of it; errors are rethrown as they are. */
async function deliverCounted(
  deps: CheckoutDeps,
  options: WorkerOptions,
  data: NotificationJob,
  enqueuedAt: number,
): Promise<string> {
  const { metrics, logger } = options;
  try {
    const result = await deliverNotification(deps, data);
    metrics.notificationAttempts.inc({ kind: data.kind, result });
    if (result === 'delivered')
      metrics.notificationLatency.observe({ kind: data.kind }, (Date.now() - enqueuedAt) / 1000);
    return result;
  } catch (error) {
    const verdict = judgeDelivery(error);
    const result = verdict.action === 'retry' ? verdict.answer : 'permanent';
    metrics.notificationAttempts.inc({ kind: data.kind, result });
    if (verdict.action === 'retry' && verdict.alert) {
      logger.error('platform refuses the connector: check PLATFORM_* credentials and URL', {
        checkoutId: data.checkoutId,
        kind: data.kind,
        reason: verdict.reason,
      });
    }
    throw error;
  }
}

function notificationHandlers(
  deps: CheckoutDeps,
  options: WorkerOptions,
): Handlers<'notifications'> {
  const notification = jobHandler({
    schema: notificationJobSchema,
    run: (data, job) => deliverCounted(deps, options, data, job.timestamp),
    onFinalFailure: async (data, error) => {
      options.logger.error('notification moved to the failed set', {
        checkoutId: data.checkoutId,
        kind: data.kind,
        reason: errorMessage(error),
      });
      await deps.store.parkFailedDelivery(data.checkoutId, deps.clock());
    },
  });
  return { finish: notification, cancel: notification };
}

/** The checkout and notification workers; processors stay thin over the use cases. */
export function startCheckoutWorkers(deps: CheckoutDeps, options: WorkerOptions): Worker[] {
  const { logger } = options;
  const common = {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency ?? 10,
    lockDuration: options.lockDurationMs,
    stalledInterval: stalledIntervalFor(options.lockDurationMs),
  };
  const checkoutWorker = new Worker(
    QUEUES.checkout,
    runProcessor(checkoutHandlers(deps, options), logger),
    common,
  );
  const notificationWorker = new Worker(
    QUEUES.notifications,
    runProcessor(notificationHandlers(deps, options), logger),
    { ...common, settings: notificationRetrySettings(options.notifyBackoffMs) },
  );

  for (const worker of [checkoutWorker, notificationWorker]) logWorkerEvents(worker, logger);
  return [checkoutWorker, notificationWorker];
}
