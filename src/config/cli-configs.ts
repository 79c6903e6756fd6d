import { z } from 'zod';
import { shopOrEnv } from '../shop/shop-id';
import { commonShape, logConfig, type LogConfig } from './common-config';
import { checkoutRouteOf, routeToken } from './env-shop-config';
import { ConfigError, deepFreeze, parseOrThrow, readEnvironment, type Env } from './env-values';
import {
  platformConfig,
  platformHostConfig,
  platformSecrets,
  platformShape,
  platformHostShape,
  type PlatformConfig,
  type PlatformHostConfig,
} from './platform-config';
import { redisConfig, redisShape, type RedisConfig } from './redis-config';
import { serverShape } from './server-schema';
import { syncConfigFrom, syncIssues, syncSecrets, syncShape } from './sync-config';
import type { ErpSinkConfig, SyncConfig } from './sync-config';

/** Only what the CLI's queue commands need: Redis and the key prefix. Throws ConfigError. */
export function loadQueueConfig(env: Env = process.env, cwd?: string): { redis: RedisConfig } {
  const raw = parseOrThrow(z.object(redisShape), readEnvironment(env, cwd));
  return { redis: redisConfig(raw) };
}

/**
 * Only what `checkout start` needs: where the connector's checkout route is, its token, and
 * Redis (to read the checkout's URL): `checkoutRouteOf` says which route and which variable
 * (CHECKOUT_ROUTE_TOKEN for the env shop, SHOP_ROUTE_TOKEN for a registry shop). Throws
 * ConfigError.
 */
export function loadCheckoutRouteConfig(
  env: Env = process.env,
  cwd?: string,
  shop: string = shopOrEnv(undefined),
): {
  connectorUrl: string;
  routePath: string;
  routeToken: string;
  redis: RedisConfig;
  secrets: string[];
} {
  const raw = parseOrThrow(
    z
      .object({
        PORT: serverShape.PORT,
        PUBLIC_URL: serverShape.PUBLIC_URL,
        ...redisShape,
        CHECKOUT_ROUTE_PATH: serverShape.CHECKOUT_ROUTE_PATH,
        CHECKOUT_ROUTE_TOKEN: routeToken.optional(),
        SHOP_ROUTE_TOKEN: routeToken.optional(),
      })
      .superRefine((raw, ctx) => {
        const { tokenVariable, missing } = checkoutRouteOf(shop, raw.CHECKOUT_ROUTE_PATH);
        if (raw[tokenVariable] !== undefined) return;
        ctx.addIssue({ code: 'custom', path: [tokenVariable], message: missing });
      }),
    readEnvironment(env, cwd),
  );
  const { path, tokenVariable } = checkoutRouteOf(shop, raw.CHECKOUT_ROUTE_PATH);
  const route = { path, token: raw[tokenVariable] ?? '' };
  return deepFreeze({
    connectorUrl: (raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
    routePath: route.path,
    routeToken: route.token,
    redis: redisConfig(raw),
    secrets: [route.token],
  });
}

/**
 * What `connector sync` needs: the platform's host, Redis (the ledger), the sink; no checkout
 * token. The shop's platform account comes on its own (`PLATFORM_*` for the env shop, the
 * registry for another). ERP_SINK is required here. Throws ConfigError.
 */
export function loadSyncConfig(
  env: Env = process.env,
  cwd?: string,
): {
  platform: PlatformHostConfig;
  log: LogConfig;
  redis: RedisConfig;
  sync: SyncConfig & { sink: ErpSinkConfig };
  concurrency: number;
  secrets: string[];
} {
  const schema = z
    .object({
      ...commonShape,
      ...platformHostShape,
      ...syncShape,
      ...redisShape,
      WORKER_CONCURRENCY: serverShape.WORKER_CONCURRENCY,
    })
    .superRefine((raw, ctx) => {
      if (raw.ERP_SINK === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['ERP_SINK'],
          message: 'is required: webhook or directory',
        });
      syncIssues(raw, ctx);
    });
  const raw = parseOrThrow(schema, readEnvironment(env, cwd));
  const platform = platformHostConfig(raw);
  const sync = syncConfigFrom(raw);
  if (!sync.sink) throw new ConfigError(['ERP_SINK: is required: webhook or directory']);
  return deepFreeze({
    platform,
    log: logConfig(raw),
    redis: redisConfig(raw),
    sync: { ...sync, sink: sync.sink },
    concurrency: raw.WORKER_CONCURRENCY,
    secrets: syncSecrets(raw),
  });
}

/** CURRENCY alone (`services get` prices a service as a checkout would). Throws ConfigError. */
export function loadCurrency(env: Env = process.env, cwd?: string): string {
  return parseOrThrow(z.object({ CURRENCY: serverShape.CURRENCY }), readEnvironment(env, cwd))
    .CURRENCY;
}

/** Only what the CLI's platform commands need: no checkout token, no Redis. Throws ConfigError. */
export function loadPlatformConfig(
  env: Env = process.env,
  cwd?: string,
): { platform: PlatformConfig; log: LogConfig; secrets: string[] } {
  const schema = z.object({ ...commonShape, ...platformShape });
  const raw = parseOrThrow(schema, readEnvironment(env, cwd));
  const platform = platformConfig(raw);
  return deepFreeze({ platform, log: logConfig(raw), secrets: platformSecrets(platform) });
}
