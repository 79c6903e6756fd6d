import { syncCheckout } from '../checkout/settle-checkout';
import type { Config } from '../config';
import type { RequestListener } from 'node:http';
import { createApp } from '../http/app';
import { checkoutFrontDoor } from '../http/checkout-front-door';
import { basicCredentialsMatcher } from '../http/middleware/basic-auth';
import { rateLimiters } from '../http/middleware/rate-limits';
import { routeTokenMatcher } from '../http/middleware/route-token';
import { checkoutRoutes } from '../http/routes/checkout-routes';
import type * as DashboardRoutes from '../http/routes/dashboard-routes';
import { returnRoutes } from '../http/routes/return-routes';
import { webhookRoutes } from '../http/routes/webhook-routes';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { pingRedis, type ConnectorRedis } from '../infra/redis';
import type { Dependencies } from './dependencies';

/**
 * The HTTP app of the process: health and metrics always; with the api role, the checkout
 * route, the provider's webhooks, the return pages, whatever routes the provider brings, and
 * the dashboard when configured.
 */
export function buildApp(
  config: Config,
  built: Dependencies,
  runtime: { redis: ConnectorRedis; logger: Logger; metrics: Metrics },
): { listener: RequestListener; dashboard: boolean } {
  const { deps, providerModule } = built;
  const { logger, metrics, redis } = runtime;
  const serveApi = config.role !== 'worker';
  const { pageNotice } = providerModule;
  const hooks = { hint: (checkoutId: string) => syncCheckout(deps, checkoutId) };
  const limiters = serveApi
    ? rateLimiters(
        config.http.rateLimits,
        { send: (command, ...args) => redis.call(command, ...args), prefix: config.redis.prefix },
        logger,
        {
          checkout: routeTokenMatcher(config.checkout.routeToken),
          dashboard: config.dashboard
            ? basicCredentialsMatcher(config.dashboard.user, config.dashboard.password)
            : undefined,
        },
      )
    : undefined;
  const apiRouters = serveApi
    ? [
        checkoutRoutes(deps, {
          path: config.checkout.routePath,
          token: config.checkout.routeToken,
          rateLimit: limiters?.checkout,
        }),
      ]
    : [];
  const routers = serveApi
    ? [
        returnRoutes(deps, pageNotice),
        ...(providerModule.routes ? [providerModule.routes(hooks)] : []),
      ]
    : [];
  const adminRouters =
    serveApi && config.dashboard
      ? [
          loadDashboard().dashboardRoutes(built.queues, config.dashboard, {
            publicUrl: deps.publicUrl,
            logger,
          }),
        ]
      : [];
  const app = createApp({
    logger,
    metrics,
    isReady: () => pingRedis(redis),
    apiRouters,
    routers,
    rawBodyRouters: serveApi ? [webhookRoutes(deps)] : [],
    adminRouters,
    metricsElsewhere: config.metrics !== undefined,
    trustProxyHops: config.http.trustProxyHops,
    rateLimits: limiters,
  });
  const frontDoor = serveApi
    ? checkoutFrontDoor({
        deps,
        path: config.checkout.routePath,
        token: config.checkout.routeToken,
        logger,
        metrics,
      })
    : undefined;
  const listener: RequestListener = frontDoor
    ? (req, res) => {
        if (!frontDoor(req, res)) void app(req, res);
      }
    : app;
  return { listener, dashboard: adminRouters.length > 0 };
}

/**
 * bull-board is loaded only by a process that serves the dashboard: a worker, or an api process
 * without DASHBOARD_*, is spared its modules (about 10 MB of memory).
 */
function loadDashboard(): typeof DashboardRoutes {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../http/routes/dashboard-routes') as typeof DashboardRoutes;
}
