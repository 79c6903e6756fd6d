import type { Worker } from 'bullmq';
import type { Config } from '../config';
import { ShopBreaker } from '../delivery/shop-breaker';
import { connectionErrorLogger, type Logger } from '../infra/logger';
import { observeBreakers, type Metrics } from '../infra/metrics';
import { closeRedis, createRedis, type ConnectorConnection } from '../redis/redis';
import { settlesWithin } from '../redis/settles-within';
import type { Shutdown } from '../infra/shutdown';
import { startCheckoutWorkers } from '../jobs/checkout-workers';
import { startProviderWorker, type ProviderTasks } from '../jobs/provider-workers';
import type { StartWorkerOptions } from '../jobs/start-worker';
import { startSyncWorker } from '../jobs/sync-workers';
import { connectedShops } from './credential-renewal';
import { webhookPass } from './provider-webhooks';
import { RedisShopBreakers } from '../store/redis-shop-breaker';
import type { Dependencies } from './dependencies';

/** The workers of the process (none with the api role), on a connection of their own. */
export interface RunningWorkers {
  workers: Worker[];
  close(shutdown: Shutdown): Promise<void>;
}

/** Each queue's worker, and the schedules of the reconciler, the sync and the providers' passes. */
export async function startWorkers(
  config: Config,
  built: Dependencies,
  runtime: { logger: Logger; metrics: Metrics },
): Promise<RunningWorkers> {
  if (config.role === 'api') return { workers: [], close: async () => {} };
  const { logger } = runtime;
  const connection = createRedis(config.redis, 'worker', `${config.redis.prefix}-worker`);
  connection.on('error', connectionErrorLogger(logger, { redis: 'worker' }));
  const common: StartWorkerOptions = {
    connection,
    prefix: config.redis.prefix,
    lockDurationMs: config.jobs.lockMs,
    concurrency: config.workerConcurrency,
    logger,
  };
  const workers = [
    ...checkoutWorkers(config, built, { ...common, connection }, runtime.metrics),
    startProviderWorker(providerTasks(built, logger), common),
  ];
  const { syncQueue } = built;
  if (syncQueue) {
    const { notify, platform } = config;
    const options = { ...common, backoffMs: notify.backoffMs, pageSize: platform.pageSize };
    workers.push(startSyncWorker(built.directory, syncQueue, options));
    // SYNC_INTERVAL unset removes a schedule an earlier configuration left behind.
    await syncQueue.schedule(config.sync.intervalMs);
  }
  await built.jobs.scheduleReconciler(config.jobs.reconcileIntervalMs);
  await built.providerJobs.schedule();
  return { workers, close: (shutdown) => closeWorkers(workers, connection, shutdown, logger) };
}

/** The checkout and notification workers, each shop's platform behind its circuit breaker. */
function checkoutWorkers(
  config: Config,
  built: Dependencies,
  common: StartWorkerOptions & { connection: ConnectorConnection },
  metrics: Metrics,
): Worker[] {
  const breakers = new RedisShopBreakers(common.connection, common.prefix);
  const breaker = new ShopBreaker(breakers, config.shops.breaker, common.logger);
  observeBreakers(metrics, () => breaker.openShops());
  return startCheckoutWorkers(built.directory, {
    ...common,
    notifyBackoffMs: config.notify.backoffMs,
    reconcileIntervalMs: config.jobs.reconcileIntervalMs,
    pixWatchDays: config.jobs.pixWatchDays,
    metrics,
    breaker,
  });
}

/**
 * The providers queue's tasks: renewals, and the two passes, each one at a time here. A pass reads
 * the registry as stored: whichever worker takes it may not have polled since a shop connected.
 */
function providerTasks(built: Dependencies, logger: Logger): ProviderTasks {
  const { credentials, registry } = built;
  const pass = (run: () => Promise<void>) => oneAtATime(() => registry.refresh().then(run));
  return {
    renew: ({ shop, ...request }) => credentials.renewNow(shop, request),
    renewDue: pass(() => credentials.renewDue(connectedShops(registry))),
    registerWebhooks: pass(webhookPass(built.directory, logger)),
  };
}

/**
 * A pass asked for while one runs here ends at once: the one running covers it, and a renewal
 * pass waiting for its renewals never holds a second slot of the worker they need.
 */
function oneAtATime(pass: () => Promise<void>): () => Promise<void> {
  let running = false;
  return async () => {
    if (running) return;
    running = true;
    await pass().finally(() => (running = false));
  };
}

/**
 * Stops taking jobs and waits for the ones in hand, for what is left of the deadline minus time
 * to close the queues and Redis; then the workers' connections are dropped. A job cut short is
 * picked up again by another worker once its lock lapses.
 */
async function closeWorkers(
  workers: Worker[],
  connection: ConnectorConnection,
  shutdown: Shutdown,
  logger: Logger,
): Promise<void> {
  const graceMs = Math.max(500, shutdown.remainingMs() - 2000);
  const closing = Promise.all(workers.map((worker) => worker.close()));
  if (await settlesWithin(closing, graceMs)) {
    await closeRedis(connection);
    return;
  }
  logger.warn('workers did not close in time; their jobs are retried when their locks lapse', {
    graceMs,
  });
  connection.disconnectAll();
}
