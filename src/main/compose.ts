import { once } from 'node:events';
import type { Server } from 'node:http';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { ShopDirectory } from '../checkout/shop-directory';
import type { Config } from '../config';
import { createMetricsApp } from '../http/app';
import { createHttpServer, serveRequests } from '../http/http-server';
import { addLogSecrets, createLogger, redisLocation, type Logger } from '../infra/logger';
import type { RegistryShops } from '../shop-registry/registry-shops';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import {
  createMetrics,
  observeConnections,
  observeQueues,
  observeReconciler,
  observeRedis,
} from '../infra/metrics';
import { closeRedis, pingRedis } from '../infra/redis';
import { settlesWithin } from '../infra/settles-within';
import { closeHttpServer, Shutdown } from '../infra/shutdown';
import { stopTracing } from '../infra/tracing';
import type { BullmqCheckoutJobs } from '../jobs/bullmq-checkout-jobs';
import type { BullmqSyncQueue } from '../jobs/bullmq-sync-queue';
import { deploymentNotices } from '../payments/build-provider';
import { servedConnections } from './credential-renewal';
import { shopOrEnv } from '../shop/shop-id';
import { createDependencies, type DependencyOptions } from './dependencies';
import { connectRedis } from './redis-connection';
import type { ShopRuntimeDirectory } from './shop-runtime-directory';
import { buildApp } from './start-api';
import { startWorkers } from './start-workers';

export interface RunningConnector {
  server: Server;
  /** Where the HTTP API listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Where `/metrics` is served when METRICS_PORT gives it a listener of its own. */
  metricsUrl: string | undefined;
  /** The base URL customers and providers are given. */
  publicUrl: string;
  logger: Logger;
  shutdown: Shutdown;
  /** The collaborators of the shop a bare id means (the env shop; throws without PLATFORM_EMAIL). */
  readonly deps: CheckoutDeps;
  /** Which shop, which collaborators: every shop's. */
  directory: ShopRuntimeDirectory;
  /** The registry's verbs. */
  admin: ShopAdmin;
  /** The shops this process serves; `refresh()` reads a change now rather than at the next poll. */
  registry: RegistryShops;
  jobs: BullmqCheckoutJobs;
  /** The ERP sync's queue, when ERP_SINK is set. */
  syncQueue: BullmqSyncQueue | undefined;
}

export interface StartOptions extends DependencyOptions {
  logger?: Logger;
  host?: string;
  exit?: (code: number) => void;
}

/**
 * The composition root: connects Redis, listens, builds the dependencies, serves the app and
 * starts the workers the ROLE asks for, and registers the shutdown steps in order (HTTP, then
 * workers, then queues and Redis).
 */
// eslint-disable-next-line max-lines-per-function -- the composition root: what the process starts, in order (review 4's finding 10 proposes splitting out the shutdown steps)
export async function startConnector(
  config: Config,
  options: StartOptions = {},
): Promise<RunningConnector> {
  const logger =
    options.logger ??
    createLogger({ ...config.log, secrets: config.secrets, component: config.role });
  // Every Redis listener's line names REDIS_URL (without its password) and what to check.
  redisLocation(logger, config.redis.url);
  const metrics = createMetrics();
  const { redis, reachable } = await connectRedis(config, logger);

  // Listen first, so that with PORT=0 (tests) the public URL can name the real port.
  const limits = config.http;
  const server = createHttpServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node enforces the two timeouts on this tick (30 s by default, which would let a slow
      // client hold a connection that long whatever the timeouts say).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, limits.headersTimeoutMs / 2)),
    },
    logger,
  );
  server.maxConnections = limits.maxConnections;
  const port = await listenOn(server, config.port, options.host ?? '0.0.0.0', 'PORT').catch(
    async (error: unknown) => {
      await closeRedis(redis);
      throw error;
    },
  );
  const publicUrl = config.publicUrl || `http://127.0.0.1:${port}`;

  const built = await createDependencies(
    config,
    {
      redis,
      logger,
      publicUrl,
      reachable,
      addSecrets: (values) => addLogSecrets(logger, values),
      metrics,
    },
    options,
  ).catch(async (error: unknown) => {
    await closeHttpServer(server, 1000);
    await closeRedis(redis);
    throw error;
  });
  const { jobs } = built;
  observeQueues(metrics, built.queues);
  observeReconciler(metrics, () => reconcileBacklog(built.directory, new Date()));
  observeRedis(metrics, () => pingRedis(redis));
  // Every shop served, the env shop's too: its pasted credential may expire (a certificate).
  observeConnections(metrics, () =>
    servedConnections({
      ids: () => built.directory.ids(),
      get: (id) => built.directory.cached(id)?.settings,
    }),
  );
  const { listener, dashboard, joinsCallerTrace } = buildApp(config, built, {
    redis,
    logger,
    metrics,
    publicUrl,
  });
  serveRequests(server, listener, joinsCallerTrace);
  const running = await startWorkers(config, built, { logger, metrics });
  // BullMQ checks its connections asynchronously; a shutdown while that check is in flight would
  // leave it failing with no listener. With Redis up the check takes milliseconds: wait for it.
  if (reachable) {
    await settlesWithin(
      Promise.all([jobs.ready(), ...running.workers.map((worker) => worker.waitUntilReady())]),
      5000,
    );
  }

  const metricsServer = config.metrics
    ? await listenForMetrics(config.metrics, { logger, metrics })
    : undefined;

  const shutdown = new Shutdown(logger, config.shutdownTimeoutMs, options.exit);
  shutdown.add('registry', async () => built.registry.stop());
  shutdown.add('http', () =>
    closeHttpServer(server, Math.max(1000, config.shutdownTimeoutMs - 5000)),
  );
  if (metricsServer) shutdown.add('metrics', () => closeHttpServer(metricsServer.server, 1000));
  shutdown.add('workers', () => running.close(shutdown));
  shutdown.add('queues', async () => {
    await Promise.all(built.queues.map((queue) => queue.close()));
  });
  shutdown.add('redis', () => closeRedis(redis));
  // Last: the spans of everything above reach the collector.
  shutdown.add('tracing', () => stopTracing());

  for (const warning of deploymentNotices(config.checkout.sandboxInProduction).startWarnings)
    logger.warn(warning);
  if (built.directory.ids().length === 0) {
    logger.warn(
      'no shop is served yet: set PLATFORM_EMAIL for the env shop, or add one with `connector shops add`',
    );
  }
  logger.info('connector started', {
    role: config.role,
    port,
    publicUrl,
    shops: built.directory.ids().length,
    dashboard,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
  });
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    metricsUrl: metricsServer?.url,
    publicUrl,
    logger,
    shutdown,
    get deps(): CheckoutDeps {
      const shop = built.directory.cached(shopOrEnv(undefined));
      if (!shop) throw new Error('there is no env shop (PLATFORM_EMAIL is unset)');
      return shop.deps;
    },
    directory: built.directory,
    admin: built.admin,
    registry: built.registry,
    jobs,
    syncQueue: built.syncQueue,
  };
}

/**
 * Every shop's reconciler line taken together: how many are due, the most overdue, and how many
 * records were parked as unreadable.
 */
async function reconcileBacklog(
  shops: Pick<ShopDirectory, 'ids' | 'cached'>,
  now: Date,
): Promise<{ due: number; oldestDueAt: Date | undefined; unreadable: number }> {
  const lines = await Promise.all(
    shops.ids().map((id) => shops.cached(id)?.deps.line.reconcileBacklog(now)),
  );
  let due = 0;
  let unreadable = 0;
  let oldest: number | undefined;
  for (const line of lines) {
    if (!line) continue;
    due += line.due;
    unreadable += line.unreadable;
    const at = line.oldestDueAt?.getTime();
    if (at !== undefined && (oldest === undefined || at < oldest)) oldest = at;
  }
  return { due, oldestDueAt: oldest === undefined ? undefined : new Date(oldest), unreadable };
}

/** `/metrics` on METRICS_HOST:METRICS_PORT, away from the public port. */
async function listenForMetrics(
  at: { port: number; host: string },
  runtime: { logger: Logger; metrics: ReturnType<typeof createMetrics> },
): Promise<{ server: Server; url: string }> {
  const server = createHttpServer({ headersTimeout: 5000, requestTimeout: 10_000 }, runtime.logger);
  serveRequests(server, createMetricsApp(runtime));
  const port = await listenOn(server, at.port, at.host, 'METRICS_PORT');
  const host = at.host.includes(':') ? `[${at.host}]` : at.host;
  return { server, url: `http://${host}:${port}/metrics` };
}

/**
 * Listens and resolves with the port it got (PORT=0 asks the system for a free one). A port
 * another process holds is a PortInUseError naming the port and `variable`, the one that moves it.
 */
async function listenOn(
  server: Server,
  port: number,
  host: string,
  variable: string,
): Promise<number> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EADDRINUSE')
      throw new PortInUseError(port, host, variable);
    throw error;
  }
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

/** A port another process holds: said in one line, with the variable that moves it. */
export class PortInUseError extends Error {
  constructor(port: number, host: string, variable: string) {
    super(
      `port ${port} is in use on ${host}: stop what holds it (another connector or demo?), or set ${variable} to another port`,
    );
    this.name = 'PortInUseError';
  }
}
