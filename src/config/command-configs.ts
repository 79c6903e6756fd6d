import { z } from 'zod';
import { checkoutRoutePath, ENV_SHOP_ID } from '../shop/shop-id';
import { commonShape, logConfig } from './common-config';
import { connectIssues, connectShape, vendorAccountsFrom, VENDOR_READS } from './connect-config';
import { routeToken } from './env-shop-config';
import { requireVariable } from './env-values';
import {
  platformAccountOf,
  platformHostConfig,
  platformHostShape,
  platformShape,
} from './platform-config';
import { redisConfig, redisShape } from './redis-config';
import { secretsIn } from './secret-variables';
import { publicUrlOf } from './server-config';
import { pick, type ServerVariable } from './server-schema';
import { syncConfigFrom, syncIssues, syncShape, type ErpSinkConfig } from './sync-config';

// What each command reads (CONTRACT "Configuration"): its part of the server's variables.

/** The queue commands' (`notifications`, `checkout`, `unreadable`): Redis and its key prefix. */
export const queueConfig = z.object(redisShape).transform((raw) => ({ redis: redisConfig(raw) }));

/** `connector migrate`'s: Redis, and how long checkout records are kept. */
export const migrateConfig = z
  .object({ ...redisShape, ...pick('CHECKOUT_RETENTION_DAYS', 'PIX_WATCH_DAYS') })
  .transform((raw) => ({
    redis: redisConfig(raw),
    retentionMs: raw.CHECKOUT_RETENTION_DAYS * 86_400_000,
    pixWatchDays: raw.PIX_WATCH_DAYS,
  }));

/** CURRENCY alone (`services get` prices a service as a checkout would). */
export const currencyConfig = z.object(pick('CURRENCY')).transform((raw) => raw.CURRENCY);

/** The platform commands' for the env shop: no checkout token, no Redis. */
export const platformCommandConfig = z
  .object({ ...commonShape, ...platformShape })
  .transform((raw) => ({
    platform: { ...platformHostConfig(raw), ...platformAccountOf(raw) },
    log: logConfig(raw),
    secrets: secretsIn(raw),
  }));

/** `connector sync`'s (ERP_SINK required); the shop's platform account comes on its own. */
export const syncCommandConfig = z
  .object({
    ...commonShape,
    ...platformHostShape,
    ...syncShape,
    ...redisShape,
    ...pick('WORKER_CONCURRENCY'),
  })
  .superRefine((raw, ctx) => {
    requireVariable(raw, ctx, 'ERP_SINK', 'is required: webhook or directory');
    syncIssues(raw, ctx);
  })
  .transform((raw) => {
    const sync = syncConfigFrom(raw);
    return {
      platform: platformHostConfig(raw),
      log: logConfig(raw),
      redis: redisConfig(raw),
      // The refinements above require ERP_SINK and what it needs.
      sync: { ...sync, sink: sync.sink as ErpSinkConfig },
      concurrency: raw.WORKER_CONCURRENCY,
      secrets: secretsIn(raw),
    };
  });

export type SyncCommandConfig = z.output<typeof syncCommandConfig>;

/**
 * `checkout start`'s for `shop`. A registry shop's token is SHOP_ROUTE_TOKEN, as `shops add` or
 * `rotate-token` printed it: the registry keeps only its hash.
 */
export function checkoutRouteConfig(shop: string, url?: string) {
  const envShop = shop === ENV_SHOP_ID;
  const tokenVariable = envShop ? 'CHECKOUT_ROUTE_TOKEN' : 'SHOP_ROUTE_TOKEN';
  const missing = envShop
    ? 'is required'
    : `is required: shop ${shop}'s route token, as \`shops add\` or \`rotate-token\` printed it`;
  return z
    .object({
      ...pick('PORT', 'PUBLIC_URL'),
      ...redisShape,
      ...pick('CHECKOUT_ROUTE_PATH', 'CHECKOUT_ROUTE_TOKEN'),
      SHOP_ROUTE_TOKEN: routeToken.optional(),
    })
    .superRefine((raw, ctx) => requireVariable(raw, ctx, tokenVariable, missing))
    .transform((raw) => {
      const token = raw[tokenVariable] ?? '';
      return {
        connectorUrl: publicUrlOf({ ...raw, PUBLIC_URL: url ?? raw.PUBLIC_URL }),
        routePath: envShop ? raw.CHECKOUT_ROUTE_PATH : checkoutRoutePath(shop),
        routeToken: token,
        redis: redisConfig(raw),
        secrets: [token],
      };
    });
}

/** The env shop's provider variables the vendor's accounts read, with the server's schemas. */
const vendorReads: Record<string, z.ZodType> = pick(...(VENDOR_READS as ServerVariable[]));

/** `connector shops`' (CONTRACT "Shops"); reading the registry needs no `keys` nor `platform`. */
export function shopsConfig(needs: { keys: boolean; platform: boolean }) {
  return z
    .object({
      ...commonShape,
      ...platformHostShape,
      PLATFORM_BASE_URL: platformHostShape.PLATFORM_BASE_URL.optional(),
      ...pick('PORT', 'PUBLIC_URL'),
      ...redisShape,
      ...pick('SHOP_SECRET_KEYS', 'SANDBOX_IN_PRODUCTION', 'PROVIDER_API_ORIGINS'),
      ...connectShape,
      ...vendorReads,
    })
    .superRefine((raw, ctx) => {
      connectIssues(raw, ctx);
      if (needs.platform) {
        const why = "is required: a shop's platform credentials are checked against it";
        requireVariable(raw, ctx, 'PLATFORM_BASE_URL', why);
      }
      if (needs.keys) {
        const why = "is required: the registry keeps the shops' secrets encrypted with it";
        requireVariable(raw, ctx, 'SHOP_SECRET_KEYS', why);
      }
    })
    .transform((raw) => ({
      env: raw.NODE_ENV,
      log: logConfig(raw),
      redis: redisConfig(raw),
      // Unset for the verbs that never call the platform: nothing reads it then.
      platform: platformHostConfig({ ...raw, PLATFORM_BASE_URL: raw.PLATFORM_BASE_URL ?? '' }),
      publicUrl: publicUrlOf(raw),
      shops: { secretKeys: raw.SHOP_SECRET_KEYS },
      sandboxAllowed: raw.NODE_ENV !== 'production' || raw.SANDBOX_IN_PRODUCTION === 'true',
      providerApiOrigins: (raw.PROVIDER_API_ORIGINS ?? []) as readonly string[],
      vendor: vendorAccountsFrom(raw),
      secrets: secretsIn(raw),
    }));
}

export type ShopsCliConfig = z.output<ReturnType<typeof shopsConfig>>;
