import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Router } from 'express';
import type { Worker } from 'bullmq';
import { computedAmount, type AmountSource } from '../checkout/amount-source';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { Config } from '../config';
import { createApp } from '../http/app';
import { checkoutRoutes } from '../http/routes/checkout-routes';
import { paymentPageRoutes } from '../http/routes/payment-page-routes';
import { webhookRoutes } from '../http/routes/webhook-routes';
import { createLogger, type Logger } from '../infra/logger';
import { createMetrics } from '../infra/metrics';
import { closeRedis, createRedis, pingRedis, redisOptions, waitForRedis } from '../infra/redis';
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
  redis.on('error', (error) =>
    logger.warn('redis connection error', { errMessage: error.message }),
  );
  if (!(await waitForRedis(redis, 5000))) {
    logger.warn('redis not reachable yet; /readyz answers 503 until it is', { timeoutMs: 5000 });
  }

  // Listen first, so that with PORT=0 (tests) the public URL can name the real port.
  const server = createServer();
  server.listen(config.port, options.host ?? '0.0.0.0');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const publicUrl = config.publicUrl || `http://127.0.0.1:${port}`;

  const store = new RedisCheckoutStore(redis, config.redis.prefix);
  const jobs = new BullmqCheckoutJobs(
    redisOptions(config.redis.url, 'producer', `${config.redis.prefix}-queue`),
    config.redis.prefix,
    { notifyMaxAttempts: config.notify.maxAttempts, produceBackoffMs: options.produceBackoffMs },
  );
  const sandbox = new SandboxProvider(redis, {
    prefix: config.redis.prefix,
    publicUrl,
  });
  const deps: CheckoutDeps = {
    store,
    jobs,
    platform: new PlatformClient({ ...config.platform, logger }),
    provider: sandbox,
    amountSource: options.amountSource ?? computedAmount,
    currency: config.checkout.currency,
    publicUrl,
    expiryMs: options.expiryMs ?? config.checkout.expiryMs,
    clock: () => new Date(),
    newCheckoutId: () => `chk_${randomBytes(12).toString('hex')}`,
    log: logger,
  };

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
  const app = createApp({
    logger,
    metrics,
    isReady: () => pingRedis(redis),
    routers,
    rawBodyRouters: serveApi ? [webhookRoutes(deps, logger)] : [],
  });
  server.on('request', app);

  const workers: Worker[] =
    config.role === 'api'
      ? []
      : startCheckoutWorkers(deps, {
          connection: redisOptions(config.redis.url, 'worker', `${config.redis.prefix}-worker`),
          prefix: config.redis.prefix,
          notifyBackoffMs: config.notify.backoffMs,
          logger,
        });

  const shutdown = new Shutdown(logger, config.shutdownTimeoutMs, options.exit);
  shutdown.add('http', () => closeHttpServer(server, config.shutdownTimeoutMs - 4000));
  shutdown.add('workers', async () => {
    await Promise.all(workers.map((worker) => worker.close()));
  });
  shutdown.add('queues', () => jobs.close());
  shutdown.add('redis', () => closeRedis(redis));

  logger.info('connector started', {
    role: config.role,
    port,
    publicUrl,
    provider: sandbox.name,
  });
  return { server, url: `http://127.0.0.1:${port}`, publicUrl, logger, shutdown, deps };
}
