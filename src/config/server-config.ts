import type { z } from 'zod';
import { withoutTrailingSlashes } from '../payments/provider-hosts';
import { logConfig } from './common-config';
import { vendorAccountsFrom } from './connect-config';
import { envShopConfig } from './env-shop-config';
import { readConfig, type Env } from './env-values';
import { platformHostConfig } from './platform-config';
import { redisConfig } from './redis-config';
import { secretsIn } from './secret-variables';
import { serverSchema, type ServerEnv } from './server-schema';
import { syncConfigFrom } from './sync-config';

export const configSchema = serverSchema.transform(toConfig);

export type Config = z.output<typeof configSchema>;

/** Per client address, per window; 0 turns a limit off. */
export type RateLimitConfig = Config['http']['rateLimits'];

export function loadConfig(env: Env = process.env, cwd?: string): Config {
  return readConfig(configSchema, env, cwd);
}

/** PUBLIC_URL, else PORT's local address: where customers and providers reach the connector. */
export function publicUrlOf(raw: { PUBLIC_URL?: string | undefined; PORT: number }): string {
  return withoutTrailingSlashes(raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`);
}

function toConfig(raw: ServerEnv) {
  return {
    env: raw.NODE_ENV,
    role: raw.ROLE,
    port: raw.PORT,
    /** Empty only when PORT is 0 and PUBLIC_URL unset (tests): the composition root fills it in. */
    publicUrl: raw.PORT === 0 && raw.PUBLIC_URL === undefined ? '' : publicUrlOf(raw),
    log: logConfig(raw),
    redis: redisConfig(raw),
    platform: platformHostConfig(raw),
    /** The env shop; undefined without PLATFORM_EMAIL (registry shops only). */
    envShop: envShopConfig(raw),
    providerApiOrigins: (raw.PROVIDER_API_ORIGINS ?? []) as readonly string[],
    vendor: vendorAccountsFrom(raw),
    shops: shopsConfig(raw),
    checkout: checkoutConfig(raw),
    dashboard: dashboardOf(raw),
    notify: { maxAttempts: raw.NOTIFY_MAX_ATTEMPTS, backoffMs: raw.NOTIFY_BACKOFF_MS },
    jobs: {
      lockMs: raw.JOB_LOCK_MS,
      reconcileIntervalMs: raw.RECONCILE_INTERVAL_MS,
      pixWatchDays: raw.PIX_WATCH_DAYS,
    },
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT_MS,
    http: httpConfig(raw),
    metrics:
      raw.METRICS_PORT === undefined
        ? undefined
        : { port: raw.METRICS_PORT, host: raw.METRICS_HOST },
    workerConcurrency: raw.WORKER_CONCURRENCY,
    sync: syncConfigFrom(raw),
    secrets: secretsIn(raw),
  };
}

function checkoutConfig(raw: ServerEnv) {
  return {
    sandboxInProduction: raw.NODE_ENV === 'production' && raw.SANDBOX_IN_PRODUCTION === 'true',
    currency: raw.CURRENCY,
    expiryMs: raw.CHECKOUT_EXPIRY_MINUTES * 60_000,
    retentionMs: raw.CHECKOUT_RETENTION_DAYS * 86_400_000,
  };
}

function dashboardOf(raw: ServerEnv): { user: string; password: string } | undefined {
  return raw.DASHBOARD_USER !== undefined && raw.DASHBOARD_PASSWORD !== undefined
    ? { user: raw.DASHBOARD_USER, password: raw.DASHBOARD_PASSWORD }
    : undefined;
}

function shopsConfig(raw: ServerEnv) {
  return {
    /** SHOP_SECRET_KEYS as given (checked); parsed where the keys are used. */
    secretKeys: raw.SHOP_SECRET_KEYS,
    /** ADMIN_TOKEN: the admin API is off while unset. */
    adminToken: raw.ADMIN_TOKEN,
    refreshMs: raw.SHOP_REFRESH_MS,
    breaker: {
      failures: raw.SHOP_BREAKER_FAILURES,
      cooldownMs: raw.SHOP_BREAKER_COOLDOWN_MS,
    },
  };
}

function httpConfig(raw: ServerEnv) {
  return {
    headersTimeoutMs: raw.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: raw.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: raw.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: raw.HTTP_MAX_CONNECTIONS,
    trustProxyHops: raw.TRUST_PROXY_HOPS,
    rateLimits: {
      windowMs: raw.RATE_LIMIT_WINDOW_SECONDS * 1000,
      checkoutFailures: raw.RATE_LIMIT_CHECKOUT_FAILURES,
      webhookFailures: raw.RATE_LIMIT_WEBHOOK_FAILURES,
      pages: raw.RATE_LIMIT_PAGES,
      dashboardFailures: raw.RATE_LIMIT_DASHBOARD_FAILURES,
      // Wrong admin tokens count against the dashboard's limit.
      adminFailures: raw.RATE_LIMIT_DASHBOARD_FAILURES,
    },
  };
}
