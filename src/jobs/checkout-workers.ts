import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { expireCheckout } from '../checkout/expire-checkout';
import { abandonCheckout, produceCheckout } from '../checkout/produce-checkout';
import { reconcileCheckouts } from '../checkout/reconcile-checkouts';
import { deliverNotification } from '../delivery/deliver-notification';
import { judgeDelivery } from '../delivery/delivery-policy';
import { platformAnswered, platformTrouble, type ShopBreaker } from '../delivery/shop-breaker';
import { AppError, errorMessage } from '../errors';
import { queuePrefix } from '../infra/keyspace';
import { runWithLogContext } from '../infra/log-context';
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
import {
  jobHandler,
  runProcessor,
  servedShop,
  waitWithoutAttempt,
  type JobContext,
  type JobHandler,
  type JobShops,
} from './run-processor';

/** The shops the workers serve: each job's collaborators are its shop's. */
export interface ShopDepsSource extends JobShops {
  depsFor(shop: string): { deps: CheckoutDeps; settings: { incarnation: string } } | undefined;
  current(shop: string): Promise<{ deps: CheckoutDeps } | undefined>;
  ids(): readonly string[];
}

/** The checkout collaborators of a job's shop (`servedShop`: retried while it is not served). */
function shopDeps(
  shops: ShopDepsSource,
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
  /** How often reconciler passes run. */
  reconcileIntervalMs: number;
  logger: Logger;
  metrics: Metrics;
  /** Each shop's circuit breaker, in front of every job that calls the shop's platform. */
  breaker: ShopBreaker;
  /** Jobs run at once per queue (WORKER_CONCURRENCY); 10 unless said. */
  concurrency?: number;
}

/** A short, secret-free reason for a cancel, from whatever stopped the checkout. */
function abandonReason(error: unknown): string {
  return `checkout could not be produced (${error instanceof AppError ? error.code : 'INTERNAL'})`;
}

type Handlers<Queue extends keyof typeof JOB_NAMES> = Record<
  (typeof JOB_NAMES)[Queue][number],
  JobHandler<JobContext>
>;

function checkoutHandlers(shops: ShopDepsSource, options: WorkerOptions): Handlers<'checkout'> {
  const turns = { next: 0 };
  return {
    produce: jobHandler({
      schema: produceJobSchema,
      run: (data) => produceBehindBreaker(shops, options.breaker, data),
      onFinalFailure: async (data, error) => {
        options.logger.error('checkout abandoned', {
          checkoutId: data.checkoutId,
          ...errorFields(error),
        });
        await abandonCheckout(shopDeps(shops, data), data.checkoutId, abandonReason(error));
      },
    }),
    expire: jobHandler({
      schema: expireJobSchema,
      run: (data) => expireCheckout(shopDeps(shops, data), data.checkoutId),
    }),
    reconcile: jobHandler({
      schema: reconcileJobSchema,
      run: () => reconcileEveryShop(shops, options, turns),
    }),
  };
}

/**
 * One reconciler pass over every shop's line, within one budget: the shops take turns at going
 * first, so a shop with a long line never keeps another's from being looked at pass after pass.
 */
async function reconcileEveryShop(
  shops: ShopDepsSource,
  options: WorkerOptions,
  /** Where this process's next pass starts among the shops: each gets to go first in turn. */
  turns: { next: number },
): Promise<Record<string, number>> {
  // Leave the rest of the interval free, so passes do not pile up.
  const deadline = Date.now() + Math.round(options.reconcileIntervalMs * 0.8);
  const ids = shops.ids();
  const start = ids.length === 0 ? 0 : turns.next % ids.length;
  turns.next = start + 1;
  const total: Record<string, number> = {};
  for (const shop of [...ids.slice(start), ...ids.slice(0, start)]) {
    // The shop as stored now: one removed since the last poll is not reconciled with its account.
    const runtime = await shops.current(shop);
    if (!runtime) continue;
    // Each shop's lines in the log carry its id, as a job's do.
    const report = await runWithLogContext({ shop }, () =>
      reconcileCheckouts(runtime.deps, {
        intervalMs: options.reconcileIntervalMs,
        budgetMs: Math.max(0, deadline - Date.now()),
      }),
    );
    options.metrics.unreadableRecords.inc(report.unreadable);
    for (const [key, value] of Object.entries(report)) total[key] = (total[key] ?? 0) + value;
  }
  return total;
}

/**
 * Produces a checkout, unless its shop's platform keeps failing (its breaker is open): then the
 * attempt fails at once (the customer is waiting; a checkout produced hours later would serve no
 * one), instead of holding a worker for the platform's timeout that other shops' checkouts need.
 * Only finish/cancel deliveries open and probe the breaker: one service the platform refuses
 * while the customer waits says nothing of the shop's account.
 */
async function produceBehindBreaker(
  shops: ShopDepsSource,
  breaker: ShopBreaker,
  data: { shop: string; incarnation?: string; checkoutId: string; jobKey: string },
): Promise<unknown> {
  const deps = shopDeps(shops, data);
  if (await breaker.isOpen(data.shop)) {
    throw new AppError(
      'PLATFORM_UNAVAILABLE',
      `The platform keeps failing for shop "${data.shop}": no checkout is produced until it answers.`,
    );
  }
  return produceCheckout(deps, data.checkoutId, data.jobKey);
}

/**
 * Delivers a finish or cancel behind its shop's breaker: while the shop's platform keeps
 * failing, the job waits (moved back to delayed, its attempt not spent) and the workers go on
 * with other shops' jobs; the failure that opens the breaker, or a failed probe, waits too.
 * Every answer of the platform closes the breaker.
 */
async function deliverBehindBreaker(
  shops: ShopDepsSource,
  options: WorkerOptions,
  data: NotificationJob,
  job: Job,
  token: string | undefined,
): Promise<string> {
  // The shop is found first: a shop not served is no delivery attempt to count.
  const deps = shopDeps(shops, data);
  const { breaker, metrics } = options;
  const hold = async (untilMs: number, error: unknown): Promise<never> => {
    metrics.notificationsHeld.inc({ shop: data.shop });
    return waitWithoutAttempt(job, token, untilMs, error);
  };
  const admission = await breaker.admit(data.shop);
  if (admission.kind === 'wait') {
    return hold(
      admission.until,
      new AppError('PLATFORM_UNAVAILABLE', `The platform keeps failing for shop "${data.shop}".`),
    );
  }
  try {
    const result = await deliverCounted(deps, options, data, job.timestamp);
    // A duplicate or superseded notification made no call: it says nothing of the platform.
    if (result === 'delivered') await breaker.answered(data.shop);
    return result;
  } catch (error) {
    if (platformTrouble(error)) {
      const waitUntil = await breaker.failed(data.shop, admission.probe);
      if (waitUntil !== undefined) return hold(waitUntil, error);
    } else if (platformAnswered(error)) {
      await breaker.answered(data.shop);
    }
    throw error;
  }
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
    metrics.notificationAttempts.inc({ shop: data.shop, kind: data.kind, result });
    if (result === 'delivered')
      metrics.notificationLatency.observe({ kind: data.kind }, (Date.now() - enqueuedAt) / 1000);
    return result;
  } catch (error) {
    const verdict = judgeDelivery(error);
    const result = verdict.action === 'retry' ? verdict.answer : 'permanent';
    metrics.notificationAttempts.inc({ shop: data.shop, kind: data.kind, result });
    if (verdict.action === 'retry' && verdict.alert) {
      logger.error(
        "platform refuses the connector: check the shop's platform credentials and URL",
        {
          checkoutId: data.checkoutId,
          kind: data.kind,
          reason: verdict.reason,
        },
      );
    }
    throw error;
  }
}

function notificationHandlers(
  shops: ShopDepsSource,
  options: WorkerOptions,
): Handlers<'notifications'> {
  const notification = jobHandler({
    schema: notificationJobSchema,
    run: (data, job, token) => deliverBehindBreaker(shops, options, data, job, token),
    onFinalFailure: async (data, error) => {
      options.logger.error('notification moved to the failed set', {
        checkoutId: data.checkoutId,
        kind: data.kind,
        reason: errorMessage(error),
      });
      const deps = shopDeps(shops, data);
      await deps.store.parkFailedDelivery(data.checkoutId, deps.clock());
    },
  });
  return { finish: notification, cancel: notification };
}

/** The checkout and notification workers; processors stay thin over the use cases. */
export function startCheckoutWorkers(shops: ShopDepsSource, options: WorkerOptions): Worker[] {
  const { logger } = options;
  const common = {
    connection: options.connection,
    concurrency: options.concurrency ?? 10,
    lockDuration: options.lockDurationMs,
    stalledInterval: stalledIntervalFor(options.lockDurationMs),
  };
  const checkoutWorker = new Worker(
    QUEUES.checkout,
    runProcessor(checkoutHandlers(shops, options), logger, { shops }),
    { ...common, prefix: queuePrefix(options.prefix, QUEUES.checkout) },
  );
  const notificationWorker = new Worker(
    QUEUES.notifications,
    runProcessor(notificationHandlers(shops, options), logger, { shops }),
    {
      ...common,
      prefix: queuePrefix(options.prefix, QUEUES.notifications),
      settings: notificationRetrySettings(options.notifyBackoffMs),
    },
  );

  for (const worker of [checkoutWorker, notificationWorker]) logWorkerEvents(worker, logger);
  return [checkoutWorker, notificationWorker];
}
