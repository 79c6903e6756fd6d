import { once } from 'node:events';
import type { Server } from 'node:http';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { ReconcileBacklog } from '../checkout/ports';
import type { ShopDirectory } from '../checkout/shop-directory';
import type { Config } from '../config';
import { createMetricsApp } from '../http/app';
import { createHttpServer, serveRequests } from '../http/http-server';
import { addLogSecrets, createLogger, redisLocation, type Logger } from '../infra/logger';
import {
  createMetrics,
  type Metrics,
  observeConnections,
  observeQueues,
  observeBalances,
  observeReconciler,
  observeRedis,
} from '../infra/metrics';
import { closeRedis, pingRedis, type ConnectorConnection } from '../redis/redis';
import { settlesWithin } from '../redis/settles-within';
import { closeHttpServer, Shutdown } from '../infra/shutdown';
import { stopTracing } from '../tracing/tracing';
import { deploymentNotices } from '../payments/build-provider';
import { servedConnections } from './credential-renewal';
import { shopOrEnv } from '../shop/shop-id';
import { createDependencies, type Dependencies, type DependencyOptions } from './dependencies';
import { connectRedis } from './redis-connection';
import { buildApp } from './start-api';
import { startWorkers, type RunningWorkers } from './start-workers';

export interface RunningConnector extends Pick<
  Dependencies,
  'directory' | 'admin' | 'registry' | 'jobs' | 'syncQueue'
> {
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
  const server = apiServer(config.http, logger);
  const listening = listenOn(server, config.port, options.host ?? '0.0.0.0', 'PORT');
  const port = await orUndo(listening, () => closeRedis(redis));
  const publicUrl = config.publicUrl || `http://127.0.0.1:${port}`;
  const addSecrets = (values: string[]) => addLogSecrets(logger, values);
  const runtime = { redis, logger, publicUrl, reachable, addSecrets, metrics };
  const built = await orUndo(createDependencies(config, runtime, options), async () => {
    await closeHttpServer(server, 1000);
    await closeRedis(redis);
  });
  observeConnector(metrics, built, redis);
  const app = buildApp(config, built, runtime);
  serveRequests(server, app.listener, app.joinsCallerTrace);
  const running = await startWorkers(config, built, { logger, metrics });
  if (reachable) await workersReady(built, running);
  const metricsServer = config.metrics
    ? await listenForMetrics(config.metrics, { logger, metrics })
    : undefined;
  const shutdown = new Shutdown(logger, config.shutdownTimeoutMs, options.exit);
  addShutdownSteps(shutdown, config, { redis, server, metricsServer, built, running });
  const metricsUrl = metricsServer?.url;
  announce(config, built, logger, { port, publicUrl, dashboard: app.dashboard, metricsUrl });
  const url = `http://127.0.0.1:${port}`;
  return runningConnector(built, { server, url, metricsUrl, publicUrl, logger, shutdown });
}

async function orUndo<T>(step: Promise<T>, undo: () => Promise<unknown>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    await undo();
    throw error;
  }
}

/** The API's server, with the HTTP limits against slow or numerous clients. */
function apiServer(limits: Config['http'], logger: Logger): Server {
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
  return server;
}

function observeConnector(metrics: Metrics, built: Dependencies, redis: ConnectorConnection) {
  observeQueues(metrics, built.queues);
  observeReconciler(metrics, () => reconcileBacklog(built.directory, new Date()));
  observeBalances(metrics, () => planBalances(built.directory, new Date()));
  observeRedis(metrics, () => pingRedis(redis));
  // Every shop served, the env shop's too: its pasted credential may expire (a certificate).
  observeConnections(metrics, () =>
    servedConnections({
      ids: () => built.directory.ids(),
      get: (id) => built.directory.cached(id)?.settings,
    }),
  );
}

/**
 * BullMQ checks its connections asynchronously; a shutdown while that check is in flight would
 * leave it failing with no listener. With Redis up the check takes milliseconds: wait for it.
 */
async function workersReady(built: Dependencies, running: RunningWorkers): Promise<void> {
  const workers = running.workers.map((worker) => worker.waitUntilReady());
  await settlesWithin(Promise.all([built.jobs.ready(), ...workers]), 5000);
}

/** The shutdown's steps, in order: stop taking work, finish it, then close what it used. */
function addShutdownSteps(
  shutdown: Shutdown,
  config: Config,
  parts: {
    redis: ConnectorConnection;
    server: Server;
    metricsServer: { server: Server } | undefined;
    built: Dependencies;
    running: RunningWorkers;
  },
): void {
  const { built, metricsServer } = parts;
  shutdown.add('registry', async () => built.registry.stop());
  shutdown.add('http', () =>
    closeHttpServer(parts.server, Math.max(1000, config.shutdownTimeoutMs - 5000)),
  );
  if (metricsServer) shutdown.add('metrics', () => closeHttpServer(metricsServer.server, 1000));
  shutdown.add('workers', () => parts.running.close(shutdown));
  shutdown.add('queues', async () => {
    await Promise.all([...built.queues.map((queue) => queue.close()), built.providerJobs.close()]);
  });
  shutdown.add('redis', () => closeRedis(parts.redis));
  // Last: the spans of everything above reach the collector.
  shutdown.add('tracing', () => stopTracing());
}

function announce(
  config: Config,
  built: Dependencies,
  logger: Logger,
  fields: { port: number; publicUrl: string; dashboard: boolean; metricsUrl?: string },
): void {
  const { port, publicUrl, dashboard, metricsUrl } = fields;
  for (const warning of deploymentNotices(config.checkout.sandboxInProduction).startWarnings)
    logger.warn(warning);
  const shops = built.directory.ids().length;
  if (shops === 0) {
    logger.warn(
      'no shop is served yet: set PLATFORM_EMAIL for the env shop, or add one with `connector shops add`',
    );
  }
  const started = { role: config.role, port, publicUrl, shops, dashboard };
  logger.info('connector started', { ...started, ...(metricsUrl ? { metricsUrl } : {}) });
}

function runningConnector(
  built: Dependencies,
  process: Pick<
    RunningConnector,
    'server' | 'url' | 'metricsUrl' | 'publicUrl' | 'logger' | 'shutdown'
  >,
): RunningConnector {
  return {
    ...process,
    get deps(): CheckoutDeps {
      const shop = built.directory.cached(shopOrEnv(undefined));
      if (!shop) throw new Error('there is no env shop (PLATFORM_EMAIL is unset)');
      return shop.deps;
    },
    directory: built.directory,
    admin: built.admin,
    registry: built.registry,
    jobs: built.jobs,
    syncQueue: built.syncQueue,
  };
}

/** Every shop's reconciler line taken together. */
async function reconcileBacklog(
  shops: Pick<ShopDirectory, 'ids' | 'cached'>,
  now: Date,
): Promise<ReconcileBacklog> {
  const read = shops.ids().map((id) => shops.cached(id)?.deps.line.reconcileBacklog(now));
  const lines = (await Promise.all(read)).filter((line) => line !== undefined);
  const oldest = Math.min(...lines.map((line) => line.oldestDueAt?.getTime() ?? Infinity));
  const sum = (of: (line: ReconcileBacklog) => number) =>
    lines.reduce((total, line) => total + of(line), 0);
  return {
    due: sum((line) => line.due),
    oldestDueAt: oldest === Infinity ? undefined : new Date(oldest),
    unreadable: sum((line) => line.unreadable),
    watched: sum((line) => line.watched),
    watchDue: sum((line) => line.watchDue),
  };
}

/** Each shop's balances of plans, due and overdue. */
async function planBalances(
  shops: Pick<ShopDirectory, 'ids' | 'cached'>,
  now: Date,
): Promise<Array<{ shop: string; due: number; overdue: number }>> {
  const read = shops.ids().map(async (shop) => {
    const line = shops.cached(shop)?.deps.line;
    return line ? { shop, ...(await line.balances(now)) } : undefined;
  });
  return (await Promise.all(read)).filter((one) => one !== undefined);
}

/** `/metrics` on METRICS_HOST:METRICS_PORT, away from the public port. */
async function listenForMetrics(
  at: { port: number; host: string },
  runtime: { logger: Logger; metrics: Metrics },
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

export class PortInUseError extends Error {
  constructor(port: number, host: string, variable: string) {
    super(
      `port ${port} is in use on ${host}: stop what holds it (another connector or demo?), or set ${variable} to another port`,
    );
    this.name = 'PortInUseError';
  }
}
