import type { Worker } from 'bullmq';
import type { Config } from '../config';
import { ShopBreaker } from '../delivery/shop-breaker';
import { connectionErrorLogger, type Logger } from '../infra/logger';
import { observeBreakers, type Metrics } from '../infra/metrics';
import { closeRedis, createRedis, type ConnectorConnection } from '../infra/redis';
import { settlesWithin } from '../infra/settles-within';
import type { Shutdown } from '../infra/shutdown';
import { startCheckoutWorkers } from '../jobs/checkout-workers';
import { startSyncWorker } from '../jobs/sync-workers';
import { keepCredentialsAlive } from './credential-renewal';
import { keepWebhooksRegistered } from './provider-webhooks';
import { RedisShopBreakers } from '../store/redis-shop-breaker';
import type { Dependencies } from './dependencies';

/** The workers of the process (none with the api role), on a connection of their own. */
export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs, waits for the ones in hand within the shutdown's deadline, then ends. */
  close(shutdown: Shutdown): Promise<void>;
}

// eslint-disable-next-line max-lines-per-function -- the composition of the workers: each queue's worker, in order
export async function startWorkers(
  config: Config,
  built: Dependencies,
  runtime: { logger: Logger; metrics: Metrics },
): Promise<RunningWorkers> {
  if (config.role === 'api') return { workers: [], close: async () => {} };
  const { logger } = runtime;
  const connection: ConnectorConnection = createRedis(
    config.redis,
    'worker',
    `${config.redis.prefix}-worker`,
  );
  connection.on('error', connectionErrorLogger(logger, { redis: 'worker' }));
  const breaker = new ShopBreaker(
    new RedisShopBreakers(connection, config.redis.prefix),
    config.shops.breaker,
    logger,
  );
  observeBreakers(runtime.metrics, () => breaker.openShops());
  const workers = startCheckoutWorkers(built.directory, {
    connection,
    prefix: config.redis.prefix,
    notifyBackoffMs: config.notify.backoffMs,
    lockDurationMs: config.jobs.lockMs,
    reconcileIntervalMs: config.jobs.reconcileIntervalMs,
    logger,
    metrics: runtime.metrics,
    breaker,
    concurrency: config.workerConcurrency,
  });
  if (built.syncQueue) {
    workers.push(
      startSyncWorker(built.directory, built.syncQueue, {
        connection,
        prefix: config.redis.prefix,
        backoffMs: config.notify.backoffMs,
        lockDurationMs: config.jobs.lockMs,
        concurrency: config.workerConcurrency,
        pageSize: config.platform.pageSize,
        logger,
      }),
    );
    // SYNC_INTERVAL unset removes a schedule an earlier configuration left behind.
    await built.syncQueue.schedule(config.sync.intervalMs);
  }
  await built.jobs.scheduleReconciler(config.jobs.reconcileIntervalMs);
  const stopRenewals = keepCredentialsAlive(built.registry, built.credentials, logger);
  const webhooks = keepWebhooksRegistered(built.directory, logger);
  return {
    workers,
    // close() stops taking jobs and waits for the ones in hand, for what is left of the deadline
    // minus time to close the queues and Redis; then the workers' connections are dropped. A job
    // cut short is picked up again by another worker once its lock lapses.
    close: async (shutdown) => {
      stopRenewals();
      webhooks.stop();
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
    },
  };
}
