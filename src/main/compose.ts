import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Router } from 'express';
import type { Worker } from 'bullmq';
import { computedAmount, type AmountSource } from '../checkout/amount-source';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { newCheckoutId } from '../checkout/checkout-record';
import { ConfigError, type Config } from '../config';
import { createApp } from '../http/app';
import { checkoutRoutes } from '../http/routes/checkout-routes';
import { dashboardRoutes } from '../http/routes/dashboard-routes';
import { paymentPageRoutes } from '../http/routes/payment-page-routes';
import { webhookRoutes } from '../http/routes/webhook-routes';
import { connectionErrorLogger, createLogger, type Logger } from '../infra/logger';
import { createMetrics, observeQueues, observeReconciler } from '../infra/metrics';
import {
  closeRedis,
  createRedis,
  pingRedis,
  waitForRedis,
  type ConnectorRedis,
} from '../infra/redis';
import { readEvictionPolicy } from '../infra/redis-safety';
import { settlesWithin } from '../infra/settles-within';
import { closeHttpServer, Shutdown } from '../infra/shutdown';
import { BullmqCheckoutJobs } from '../jobs/bullmq-checkout-jobs';
import { startCheckoutWorkers } from '../jobs/checkout-workers';
import { SandboxProvider } from '../payments/sandbox/sandbox-provider';
import { PlatformClient } from '../platform/platform-client';
import { RedisCheckoutStore } from '../store/redis-checkout-store';

export interface RunningConnector {
  server: Server;
  /** Where the HTTP API listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** The base URL customers and providers are given. */
  publicUrl: string;
  logger: Logger;
  shutdown: Shutdown;
  deps: CheckoutDeps;
  jobs: BullmqCheckoutJobs;
}

export interface StartOptions {
  logger?: Logger;
  host?: string;
  exit?: (code: number) => void;
  /** Replaces the default amount source (the sum of the service's prices). */
  amountSource?: AmountSource;
  /** Tests shorten the checkout expiry below the config's minimum of 5 minutes. */
  expiryMs?: number;
  /** Tests shorten the first retry delay of producing a checkout (1 s by default). */
  produceBackoffMs?: number;
}

/**
 * Refuses to run on a Redis that may evict keys in production (queued notifications could
 * vanish), and warns elsewhere.
 */
async function checkRedisSafety(
  redis: ReturnType<typeof createRedis>,
  config: Config,
  logger: Logger,
): Promise<void> {
  const policy = await readEvictionPolicy(redis);
  if (policy === 'noeviction') return;
  if (policy === undefined) {
    logger.warn('could not read maxmemory-policy; make sure Redis is set to noeviction');
    return;
  }
  const problem = `REDIS_URL: Redis may evict keys (maxmemory-policy ${policy}); set maxmemory-policy noeviction so queued notifications are never dropped`;
  if (config.env === 'production') throw new ConfigError([problem]);
  logger.warn('redis may evict keys', { maxmemoryPolicy: policy });
}

/**
 * The composition root: builds every dependency from the config, starts what the ROLE asks
 * for, and registers the shutdown steps in order (HTTP, then workers, then queues and Redis).
 */
export async function startConnector(
  config: Config,
  options: StartOptions = {},
): Promise<RunningConnector> {
  const logger =
    options.logger ??
    createLogger({ ...config.log, secrets: config.secrets, component: config.role });
  const metrics = createMetrics();
  const redis = createRedis(config.redis.url, 'producer', config.redis.prefix);
  redis.on('error', connectionErrorLogger(logger, { redis: 'producer' }));
  const redisReachable = await waitForRedis(redis, 5000);
  if (redisReachable) {
    await checkRedisSafety(redis, config, logger).catch(async (error: unknown) => {
      await closeRedis(redis);
      throw error;
    });
  } else {
    logger.warn('redis not reachable yet; /readyz answers 503 until it is', { timeoutMs: 5000 });
  }

  // Listen first, so that with PORT=0 (tests) the public URL can name the real port.
  const server = createServer();
  server.listen(config.port, options.host ?? '0.0.0.0');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const publicUrl = config.publicUrl || `http://127.0.0.1:${port}`;

  // The queues share the producer connection, which is closed here (Queue.close leaves a shared
  // connection open), so it ends even when BullMQ's own quit would fail on a broken link.
  const jobs = new BullmqCheckoutJobs(redis, config.redis.prefix, {
    notifyMaxAttempts: config.notify.maxAttempts,
    produceBackoffMs: options.produceBackoffMs,
  });
  const sandbox = new SandboxProvider(redis, { prefix: config.redis.prefix, publicUrl });
  const deps: CheckoutDeps = {
    // A lost webhook is healed within two reconciler intervals: first look after half of one.
    store: new RedisCheckoutStore(redis, config.redis.prefix, {
      firstLookMs: Math.round(config.jobs.reconcileIntervalMs / 2),
    }),
    jobs,
    // Retries live in the queues (STYLE.md rule 4): the client makes one attempt by default.
    platform: new PlatformClient({ ...config.platform, logger }),
    provider: sandbox,
    amountSource: options.amountSource ?? computedAmount,
    currency: config.checkout.currency,
    publicUrl,
    expiryMs: options.expiryMs ?? config.checkout.expiryMs,
    clock: () => new Date(),
    newCheckoutId,
    log: logger,
  };
  for (const queue of jobs.queues)
    queue.on('error', connectionErrorLogger(logger, { queue: queue.name }));
  observeQueues(metrics, jobs.queues);
  const store = deps.store;
  observeReconciler(metrics, () => store.reconcileBacklog(new Date()));

  const serveApi = config.role !== 'worker';
  const routers: Router[] = serveApi
    ? [
        checkoutRoutes(deps, {
          path: config.checkout.routePath,
          token: config.checkout.routeToken,
        }),
        paymentPageRoutes(deps, sandbox),
      ]
    : [];
  const adminRouters =
    serveApi && config.dashboard ? [dashboardRoutes(jobs.queues, config.dashboard)] : [];
  const app = createApp({
    logger,
    metrics,
    isReady: () => pingRedis(redis),
    routers,
    rawBodyRouters: serveApi ? [webhookRoutes(deps, logger)] : [],
    adminRouters,
  });
  server.on('request', app);

  let workers: Worker[] = [];
  let workerConnection: ConnectorRedis | undefined;
  if (config.role !== 'api') {
    workerConnection = createRedis(config.redis.url, 'worker', `${config.redis.prefix}-worker`);
    workerConnection.on('error', connectionErrorLogger(logger, { redis: 'worker' }));
    workers = startCheckoutWorkers(deps, {
      connection: workerConnection,
      prefix: config.redis.prefix,
      notifyBackoffMs: config.notify.backoffMs,
      lockDurationMs: config.jobs.lockMs,
      reconcileIntervalMs: config.jobs.reconcileIntervalMs,
      logger,
      metrics,
    });
    await jobs.scheduleReconciler(config.jobs.reconcileIntervalMs);
  }
  // BullMQ checks its connections asynchronously; a shutdown while that check is in flight would
  // leave it failing with no listener. With Redis up the check takes milliseconds: wait for it.
  if (redisReachable) {
    await settlesWithin(
      Promise.all([jobs.ready(), ...workers.map((worker) => worker.waitUntilReady())]),
      5000,
    );
  }

  const shutdown = new Shutdown(logger, config.shutdownTimeoutMs, options.exit);
  shutdown.add('http', () =>
    closeHttpServer(server, Math.max(1000, config.shutdownTimeoutMs - 5000)),
  );
  // close() stops taking jobs and waits for the ones in hand, for what is left of the deadline
  // minus time to close the queues and Redis; then the workers' connections are dropped. A job
  // cut short is picked up again by another worker once its lock lapses.
  shutdown.add('workers', async () => {
    if (!workerConnection) return;
    const graceMs = Math.max(500, shutdown.remainingMs() - 2000);
    const closing = Promise.all(workers.map((worker) => worker.close()));
    if (await settlesWithin(closing, graceMs)) {
      await closeRedis(workerConnection);
    } else {
      logger.warn('workers did not close in time; their jobs are retried when their locks lapse', {
        graceMs,
      });
      workerConnection.disconnectAll();
    }
  });
  shutdown.add('queues', () => jobs.close());
  shutdown.add('redis', () => closeRedis(redis));

  logger.info('connector started', {
    role: config.role,
    port,
    publicUrl,
    provider: sandbox.name,
    dashboard: adminRouters.length > 0,
  });
  return { server, url: `http://127.0.0.1:${port}`, publicUrl, logger, shutdown, deps, jobs };
}
