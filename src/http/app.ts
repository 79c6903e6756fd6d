import express, { type Express, type Router } from 'express';
import helmet from 'helmet';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { errorResponder, notFound } from './middleware/error-responder';
import { observeRequests } from './middleware/observe-requests';
import { requestContext } from './middleware/request-context';
import { healthRoutes } from './routes/health-routes';

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  isReady: () => Promise<boolean>;
  /** Feature routers mounted after the health routes (checkout, pages, dashboard...). */
  routers?: Router[];
  /** Routers that read the raw body themselves (webhooks). */
  rawBodyRouters?: Router[];
  /** The dashboard: its own UI assets and scripts, so mounted before helmet's CSP. */
  adminRouters?: Router[];
}

/** Builds the Express app. It never listens: the caller (main or a test) does. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestContext());
  app.use(observeRequests(deps.logger, deps.metrics));
  for (const router of deps.adminRouters ?? []) app.use(router);
  // Payment pages and API answers are about one customer's order, at one moment: never cached.
  app.use((_req, res, next) => {
    res.setHeader('cache-control', 'no-store');
    next();
  });
  app.use(helmet());
  for (const router of deps.rawBodyRouters ?? []) app.use(router);
  // No body parser here: each route reads the body it needs, with its own limit, after its checks.
  app.use(healthRoutes({ isReady: deps.isReady, registry: deps.metrics.registry }));
  for (const router of deps.routers ?? []) app.use(router);
  app.use(notFound());
  app.use(errorResponder(deps.logger));
  return app;
}
