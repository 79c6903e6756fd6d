import express, { type Express, type Router } from 'express';
import helmet from 'helmet';
import { exactRouting } from './exact-routes';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { errorResponder, notFound } from './middleware/error-responder';
import { DASHBOARD_PATH, PAGE_PATHS, WEBHOOKS_PATH } from './public-paths';
import { observeRequests } from './middleware/observe-requests';
import { protocolChecks } from './middleware/protocol-checks';
import type { RateLimiters } from './middleware/rate-limits';
import { requestContext } from './middleware/request-context';
import { healthRoutes, metricsRoutes } from './routes/health-routes';

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  isReady: () => Promise<boolean>;
  /**
   * Machine-to-machine routes (the checkout route the platform calls): mounted first, as the
   * hot path, with no-store and nosniff but none of helmet's browser-page headers.
   */
  apiRouters?: Router[];
  /** Feature routers mounted after the health routes (checkout, pages, dashboard...). */
  routers?: Router[];
  /** Routers that read the raw body themselves (webhooks). */
  rawBodyRouters?: Router[];
  /** The dashboard: its own UI assets and scripts, so mounted before helmet's CSP. */
  adminRouters?: Router[];
  /** Proxies whose X-Forwarded-For names the client (TRUST_PROXY_HOPS); 0 or unset: none. */
  trustProxyHops?: number;
  /** `/metrics` is served by its own listener (METRICS_PORT), not this app. */
  metricsElsewhere?: boolean;
  /** The public endpoints' limiters (the checkout route's is in its own router). */
  rateLimits?: RateLimiters;
}

/** Builds the Express app. It never listens: the caller (main or a test) does. */
export function createApp(deps: AppDeps): Express {
  const app = exactRouting(express());
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops ? deps.trustProxyHops : false);
  app.set('etag', false);
  app.use(requestContext());
  app.use(observeRequests(deps.logger, deps.metrics));
  app.use(protocolChecks());
  for (const router of deps.apiRouters ?? []) app.use(router);
  mountRateLimits(app, deps.rateLimits);
  for (const router of deps.adminRouters ?? []) app.use(router);
  // Payment pages and API answers are about one customer's order, at one moment: never cached.
  app.use((_req, res, next) => {
    res.setHeader('cache-control', 'no-store');
    next();
  });
  app.use(helmet());
  for (const router of deps.rawBodyRouters ?? []) app.use(router);
  // No body parser here: each route reads the body it needs, with its own limit, after its checks.
  app.use(
    healthRoutes({
      isReady: deps.isReady,
      registry: deps.metrics.registry,
      serveMetrics: !deps.metricsElsewhere,
    }),
  );
  for (const router of deps.routers ?? []) app.use(router);
  // Every browser asks a site for its icon; the connector has none to give. No content, cached a
  // day: not a 404 in the log for each page a customer opens.
  app.get('/favicon.ico', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=86400');
    res.status(204).end();
  });
  app.use(notFound());
  app.use(errorResponder(deps.logger));
  return app;
}

/** Each limiter in front of the endpoints it guards, before any of their own work. */
function mountRateLimits(app: Express, limits: AppDeps['rateLimits']): void {
  if (!limits) return;
  const { webhooks, pages, dashboard } = limits;
  if (webhooks) app.use(WEBHOOKS_PATH, webhooks);
  if (pages) app.use([...PAGE_PATHS], pages);
  if (dashboard) app.use(DASHBOARD_PATH, dashboard);
}

/** The private listener of METRICS_PORT: `/metrics` only, JSON errors for the rest. */
export function createMetricsApp(deps: { logger: Logger; metrics: Metrics }): Express {
  const app = exactRouting(express());
  app.disable('x-powered-by');
  app.use(requestContext());
  app.use(protocolChecks());
  app.use(metricsRoutes(deps.metrics.registry));
  app.use(notFound());
  app.use(errorResponder(deps.logger));
  return app;
}
