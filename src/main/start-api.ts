import { syncCheckout } from '../checkout/settle-checkout';
import type { Config } from '../config';
import type { RequestListener } from 'node:http';
import type { Router } from 'express';
import { createApp } from '../http/app';
import { CheckoutEntry } from '../http/checkout-entry';
import { checkoutFrontDoor } from '../http/checkout-front-door';
import { basicCredentialsMatcher } from '../http/middleware/basic-auth';
import { rateLimiters } from '../http/middleware/rate-limits';
import { presentedToken } from '../http/middleware/route-token';
import { adminRoutes, adminTokenMatcher } from '../http/routes/admin-routes';
import { checkoutRoutes } from '../http/routes/checkout-routes';
import type * as DashboardRoutes from '../http/routes/dashboard-routes';
import { returnRoutes } from '../http/routes/return-routes';
import { webhookRoutes } from '../http/routes/webhook-routes';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { pingRedis, sendRawCommand, type ConnectorConnection } from '../infra/redis';
import type { Dependencies } from './dependencies';
import { sandboxRoutes } from '../payments/sandbox/sandbox-routes';
import type { ShopRuntime, Shops } from './shop-deps';

/**
 * The HTTP app of the process: health and metrics always; with the api role, every shop's
 * checkout route, the providers' webhooks, the return pages, whatever routes the providers
 * bring, the admin API when ADMIN_TOKEN is set, and the dashboard when configured.
 */
// eslint-disable-next-line max-lines-per-function -- the composition of the HTTP app: its routers in the order they match (issue 30's ShopDirectory shortens it)
export function buildApp(
  config: Config,
  built: Dependencies,
  runtime: { redis: ConnectorConnection; logger: Logger; metrics: Metrics },
): { listener: RequestListener; dashboard: boolean } {
  const { shops } = built;
  const { logger, metrics, redis } = runtime;
  const serveApi = config.role !== 'worker';
  const checkoutShop = (runtime: ShopRuntime | undefined) =>
    runtime && {
      deps: runtime.deps,
      enabled: runtime.settings.enabled,
      tokenMatches: runtime.settings.tokenMatches,
    };
  const entry = new CheckoutEntry(
    {
      cached: (shop) => checkoutShop(shops.depsFor(shop)),
      current: async (shop) => checkoutShop(await shops.current(shop)),
    },
    config.envShop?.routePath,
  );
  const { adminToken } = config.shops;
  const limiters = serveApi
    ? rateLimiters(
        config.http.rateLimits,
        { send: sendRawCommand(redis), prefix: config.redis.prefix },
        logger,
        {
          checkout: (req) => entry.opens(entry.shopOfPath(req.path), presentedToken(req)),
          dashboard: config.dashboard
            ? basicCredentialsMatcher(config.dashboard.user, config.dashboard.password)
            : undefined,
          admin: adminToken ? adminTokenMatcher(adminToken) : undefined,
        },
      )
    : undefined;
  const apiRouters = serveApi ? [checkoutRoutes(entry, { rateLimit: limiters?.checkout })] : [];
  // Every page, webhook and call reads its shop as it is stored now (Shops.current).
  const shopOfPage = async (checkoutId: string) => {
    const runtime = await shops.currentOfCheckout(checkoutId);
    return runtime && { deps: runtime.deps, pageNotice: runtime.providerModule.pageNotice };
  };
  const defaultNotice = built.envShop?.providerModule.pageNotice;
  const routers = serveApi
    ? [returnRoutes(shopOfPage, defaultNotice), providerRoutes(shops, defaultNotice)]
    : [];
  const adminRouters = serveApi
    ? [
        ...(adminToken
          ? [adminRoutes(built.admin, { token: adminToken, rateLimit: limiters?.admin })]
          : []),
        ...(config.dashboard
          ? [
              loadDashboard().dashboardRoutes(built.queues, config.dashboard, {
                publicUrl: built.envShop?.deps.publicUrl ?? config.publicUrl,
                logger,
              }),
            ]
          : []),
      ]
    : [];
  const app = createApp({
    logger,
    metrics,
    isReady: () => pingRedis(redis),
    apiRouters,
    routers,
    rawBodyRouters: serveApi
      ? [webhookRoutes(async (shop) => (await shops.current(shop))?.deps)]
      : [],
    adminRouters,
    metricsElsewhere: config.metrics !== undefined,
    trustProxyHops: config.http.trustProxyHops,
    rateLimits: limiters,
  });
  const frontDoor = serveApi ? checkoutFrontDoor({ entry, logger, metrics }) : undefined;
  const listener: RequestListener = frontDoor
    ? (req, res) => {
        if (!frontDoor(req, res)) void app(req, res);
      }
    : app;
  return { listener, dashboard: config.dashboard !== undefined && serveApi };
}

/**
 * The sandbox's payment page, `/sandbox/checkout/<checkout id>`, served for every shop: the
 * checkout id names the shop, and that shop's own sandbox answers (a shop whose provider is not
 * the sandbox has no such page: 404).
 */
function providerRoutes(shops: Shops, defaultNotice: string | undefined): Router {
  return sandboxRoutes(async (checkoutId) => {
    const runtime = await shops.currentOfCheckout(checkoutId);
    const sandbox = runtime?.providerModule.sandbox;
    if (!runtime || !sandbox) return undefined;
    const { deps } = runtime;
    return {
      sandbox,
      hooks: { hint: (id: string) => syncCheckout(deps, id) },
      pageNotice: runtime.providerModule.pageNotice,
    };
  }, defaultNotice);
}

/**
 * bull-board is loaded only by a process that serves the dashboard: a worker, or an api process
 * without DASHBOARD_*, is spared its modules (about 10 MB of memory).
 */
function loadDashboard(): typeof DashboardRoutes {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../http/routes/dashboard-routes') as typeof DashboardRoutes;
}
