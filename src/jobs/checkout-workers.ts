import type { ConnectionOptions, Worker } from 'bullmq';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { ShopDirectory } from '../checkout/shop-directory';
import { expireCheckout } from '../checkout/expire-checkout';
import { abandonCheckout } from '../checkout/produce-checkout';
import { everyShopReconciler } from '../checkout/reconcile-every-shop';
import { deliverForShop, produceForShop } from '../delivery/deliver-behind-breaker';
import type { ShopBreaker } from '../delivery/shop-breaker';
import { errorMessage } from '../errors';
import { runWithLogContext } from '../tracing/log-context';
import { errorFields, type Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import {
  expireJobSchema,
  JOB_NAMES,
  notificationJobSchema,
  produceJobSchema,
  QUEUES,
  reconcileJobSchema,
} from './queue-names';
import { startWorker } from './start-worker';
import {
  jobControlOf,
  jobHandler,
  runProcessor,
  servedShop,
  type JobContext,
  type JobHandler,
} from './run-processor';

export type CheckoutWorkerShops = Pick<
  ShopDirectory<{ deps: CheckoutDeps; settings: { incarnation: string } }>,
  'cached' | 'byId' | 'forJob' | 'purge' | 'ids'
>;

function shopDeps(
  shops: CheckoutWorkerShops,
  job: { shop: string; incarnation?: string },
): CheckoutDeps {
  return servedShop(shops, job).deps;
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
  reconcileIntervalMs: number;
  /** PIX_WATCH_DAYS: how long the reconciler reads paid Pix again. */
  pixWatchDays: number;
  logger: Logger;
  metrics: Metrics;
  /** Each shop's circuit breaker, in front of every job that calls the shop's platform. */
  breaker: ShopBreaker;
  /** Jobs run at once per queue (WORKER_CONCURRENCY); 10 unless said. */
  concurrency?: number;
}

type Handlers<Queue extends keyof typeof JOB_NAMES> = Record<
  (typeof JOB_NAMES)[Queue][number],
  JobHandler<JobContext>
>;

function checkoutHandlers(
  shops: CheckoutWorkerShops,
  options: WorkerOptions,
): Handlers<'checkout'> {
  const reconcile = everyShopReconciler(shops, {
    intervalMs: options.reconcileIntervalMs,
    watchDays: options.pixWatchDays,
    inShopContext: (shop, run) => runWithLogContext({ shop }, run),
    countUnreadable: (count) => options.metrics.unreadableRecords.inc(count),
  });
  return {
    produce: jobHandler({
      schema: produceJobSchema,
      run: (data) => produceForShop(shopDeps(shops, data), data, options.breaker),
      onFinalFailure: async (data, error) => {
        options.logger.error('checkout abandoned', {
          checkoutId: data.checkoutId,
          ...errorFields(error),
        });
        await abandonCheckout(shopDeps(shops, data), data.checkoutId, error);
      },
    }),
    expire: jobHandler({
      schema: expireJobSchema,
      run: (data) => expireCheckout(shopDeps(shops, data), data.checkoutId),
    }),
    reconcile: jobHandler({ schema: reconcileJobSchema, run: reconcile }),
  };
}

function notificationHandlers(
  shops: CheckoutWorkerShops,
  options: WorkerOptions,
): Handlers<'notifications'> {
  const shared = { breaker: options.breaker, meters: options.metrics, log: options.logger };
  const notification = jobHandler({
    schema: notificationJobSchema,
    // The shop is found first: a shop not served is no delivery attempt to count.
    run: (data, job, token) =>
      deliverForShop(
        shopDeps(shops, data),
        data,
        { enqueuedAtMs: job.timestamp, control: jobControlOf(job, token) },
        shared,
      ),
    onFinalFailure: async (data, error) => {
      options.logger.error('notification moved to the failed set', {
        checkoutId: data.checkoutId,
        kind: data.kind,
        reason: errorMessage(error),
      });
      const deps = shopDeps(shops, data);
      await deps.line.parkFailedDelivery(data.checkoutId, deps.clock());
    },
  });
  return { finish: notification, cancel: notification };
}

/** The checkout and notification workers; processors stay thin over the use cases. */
export function startCheckoutWorkers(shops: CheckoutWorkerShops, options: WorkerOptions): Worker[] {
  const common = { ...options, concurrency: options.concurrency ?? 10 };
  return [
    startWorker(
      QUEUES.checkout,
      runProcessor(checkoutHandlers(shops, options), options.logger, { shops }),
      common,
    ),
    startWorker(
      QUEUES.notifications,
      runProcessor(notificationHandlers(shops, options), options.logger, { shops }),
      { ...common, retryBackoffMs: options.notifyBackoffMs },
    ),
  ];
}
