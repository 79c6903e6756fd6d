import type { Config } from '../config';
import type { RequestListener } from 'node:http';
import type { Router } from 'express';
import { createApp, type AppDeps } from '../http/app';
import { authenticatedCallers } from '../http/authenticated-callers';
import { CheckoutEntry } from '../http/checkout-entry';
import { checkoutFrontDoor } from '../http/checkout-front-door';
import { basicCredentialsMatcher } from '../http/middleware/basic-auth';
import { rateLimiters, type RateLimiters } from '../http/middleware/rate-limits';
import { presentedToken } from '../http/middleware/route-token';
import { adminRoutes, adminTokenMatcher } from '../http/routes/admin-routes';
import { checkoutRoutes } from '../http/routes/checkout-routes';
import { connectRoutes } from '../http/routes/connect-routes';
import type * as DashboardRoutes from '../http/routes/dashboard-routes';
import { providerRoutes } from '../http/routes/provider-routes';
import { planRoutes } from '../http/routes/plan-routes';
import { returnRoutes } from '../http/routes/return-routes';
import { webhookRoutes, type ConnectEvents } from '../http/routes/webhook-routes';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import type { JoinsCallerTrace } from '../tracing/traced-requests';
import { deploymentNotices } from '../payments/build-provider';
import { pingRedis, sendRawCommand, type ConnectorConnection } from '../redis/redis';
import type { Dependencies } from './dependencies';

interface AppRuntime {
  redis: ConnectorConnection;
  logger: Logger;
  metrics: Metrics;
  /** PUBLIC_URL, or this process's own address when it is unset. */
  publicUrl: string;
}

/**
 * The HTTP app of the process: health and metrics always; with the api role, every shop's
 * checkout route, the providers' webhooks, the return pages, whatever routes the providers
 * bring, the admin API when ADMIN_TOKEN is set, and the dashboard when configured; and which
 * callers' requests join the trace their traceparent names (none of a worker's).
 */
export function buildApp(
  config: Config,
  built: Dependencies,
  runtime: AppRuntime,
): { listener: RequestListener; dashboard: boolean; joinsCallerTrace?: JoinsCallerTrace } {
  const { logger, metrics, redis } = runtime;
  const always: AppDeps = {
    logger,
    metrics,
    isReady: () => pingRedis(redis),
    metricsElsewhere: config.metrics !== undefined,
    trustProxyHops: config.http.trustProxyHops,
  };
  if (config.role === 'worker') return { listener: createApp(always), dashboard: false };

  const entry = new CheckoutEntry(built.directory, config.envShop?.routePath);
  const limiters = apiRateLimiters(config, entry, runtime);
  const app = createApp({
    ...always,
    ...apiRouters(config, built, { entry, limiters, logger, publicUrl: runtime.publicUrl }),
    rateLimits: limiters,
  });
  const frontDoor = checkoutFrontDoor({ entry, logger, metrics });
  const listener: RequestListener = (req, res) => {
    if (!frontDoor(req, res)) void app(req, res);
  };
  const joinsCallerTrace = authenticatedCallers({ entry, adminToken: config.shops.adminToken });
  return { listener, dashboard: config.dashboard !== undefined, joinsCallerTrace };
}

/** The public endpoints' limiters; the platform, a dashboard user and the admin are not counted. */
function apiRateLimiters(config: Config, entry: CheckoutEntry, runtime: AppRuntime): RateLimiters {
  const { adminToken } = config.shops;
  return rateLimiters(
    config.http.rateLimits,
    { send: sendRawCommand(runtime.redis), prefix: config.redis.prefix },
    runtime.logger,
    {
      checkout: (req) => entry.opens(entry.shopOfPath(req.path), presentedToken(req)) !== undefined,
      dashboard: config.dashboard
        ? basicCredentialsMatcher(config.dashboard.user, config.dashboard.password)
        : undefined,
      admin: adminToken ? adminTokenMatcher(adminToken) : undefined,
    },
  );
}

type Api = { entry: CheckoutEntry; limiters: RateLimiters; logger: Logger; publicUrl: string };

/**
 * The api role's routers, in the order they match. Every page, webhook and call reads its shop
 * from the one directory, as it is stored now (`ShopDirectory.byId`, `byCheckout`).
 */
function apiRouters(
  config: Config,
  built: Dependencies,
  api: Api,
): Pick<AppDeps, 'apiRouters' | 'routers' | 'rawBodyRouters' | 'adminRouters'> {
  const { directory } = built;
  // A page no shop answers shows the deployment's banner, if it has one.
  const defaultNotice = deploymentNotices(config.checkout.sandboxInProduction).pageNotice;
  return {
    apiRouters: [checkoutRoutes(api.entry, { rateLimit: api.limiters.checkout })],
    routers: [
      returnRoutes(directory, defaultNotice),
      planRoutes(directory, api.logger, defaultNotice, config.providerApiOrigins, api.publicUrl),
      providerRoutes(directory, defaultNotice),
      connectRoutes(built.links, api.logger),
    ],
    rawBodyRouters: [webhookRoutes(directory, connectEvents(built))],
    adminRouters: adminRouters(config, built, api),
  };
}

/** Connect's events at the webhook route, each acting on the shop connected to its account. */
function connectEvents({ links, registry, directory }: Dependencies): ConnectEvents {
  return {
    eventProviders: () => links.eventProviders(),
    event: (provider, rawBody, headers) => links.event(provider, rawBody, headers),
    // The registry's shops, as served: the one connected to the event's account.
    shopOf: async (provider, account) => {
      for (const id of registry.ids()) {
        const shop = registry.get(id);
        if (shop?.provider.name === provider && shop.connection?.account === account)
          return (await directory.byId(id))?.deps;
      }
      return undefined;
    },
  };
}

/** The admin API when ADMIN_TOKEN is set, the dashboard when DASHBOARD_* are. */
function adminRouters(config: Config, built: Dependencies, api: Api): Router[] {
  const { adminToken } = config.shops;
  const { logger, publicUrl } = api;
  const routers: Router[] = [];
  if (adminToken) {
    const admin = { token: adminToken, rateLimit: api.limiters.admin, links: built.links };
    routers.push(adminRoutes(built.admin, admin));
  }
  if (config.dashboard) {
    const { dashboardRoutes } = loadDashboard();
    routers.push(dashboardRoutes(built.queues, config.dashboard, { publicUrl, logger }));
  }
  return routers;
}

/**
 * bull-board is loaded only by a process that serves the dashboard: a worker, or an api process
 * without DASHBOARD_*, is spared its modules (about 10 MB of memory).
 */
function loadDashboard(): typeof DashboardRoutes {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../http/routes/dashboard-routes') as typeof DashboardRoutes;
}
