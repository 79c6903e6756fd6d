import type { z } from 'zod';
import { logConfig } from './common-config';
import { vendorAccountsFrom } from './connect-config';
import { envShopConfig, type EnvShopConfig } from './env-shop-config';
import { deepFreeze, parseOrThrow, readEnvironment, type Env } from './env-values';
import { platformHostConfig, platformSecrets } from './platform-config';
import { redisConfig } from './redis-config';
import { keyringSecrets } from './registry-config';
import { secretValues } from './secret-variables';
import { serverSchema, type ServerEnv } from './server-schema';
import { syncConfigFrom, syncSecrets } from './sync-config';

/**
 * The server's configuration as the schema's output: the environment checked by `serverSchema`,
 * then shaped by `toConfig`. `Config` is that output, so its shape is written once, below.
 */
export const configSchema = serverSchema.transform(toConfig);

export type Config = z.output<typeof configSchema>;

/** Per client address, per window; 0 turns a limit off. */
export type RateLimitConfig = Config['http']['rateLimits'];

/** The whole, frozen configuration of the server process. Throws ConfigError. */
export function loadConfig(env: Env = process.env, cwd?: string): Config {
  return deepFreeze(parseOrThrow(configSchema, readEnvironment(env, cwd)));
}

function toConfig(raw: ServerEnv) {
  const sandboxInProduction = raw.NODE_ENV === 'production' && raw.SANDBOX_IN_PRODUCTION === 'true';
  const envShop = envShopConfig(raw);
  return {
    env: raw.NODE_ENV,
    role: raw.ROLE,
    port: raw.PORT,
    /** Empty only when PORT is 0 and PUBLIC_URL unset: then it is the listening address. */
    publicUrl: publicUrlOf(raw),
    log: logConfig(raw),
    redis: redisConfig(raw),
    platform: platformHostConfig(raw),
    /** The env shop; undefined without PLATFORM_EMAIL (registry shops only). */
    envShop,
    /** PROVIDER_API_ORIGINS: where a provider may be sent besides its official hosts. */
    providerApiOrigins: (raw.PROVIDER_API_ORIGINS ?? []) as readonly string[],
    /** The vendor's own provider accounts (to connect shops' accounts) and its fee. */
    vendor: vendorAccountsFrom(raw),
    /** The registry of shops added at run time. */
    shops: shopsConfig(raw),
    checkout: {
      /** The sandbox may run under NODE_ENV=production (SANDBOX_IN_PRODUCTION=true: staging). */
      sandboxInProduction,
      currency: raw.CURRENCY,
      expiryMs: raw.CHECKOUT_EXPIRY_MINUTES * 60_000,
      /** How long a record is kept after its outcome (CHECKOUT_RETENTION_DAYS). */
      retentionMs: raw.CHECKOUT_RETENTION_DAYS * 86_400_000,
    },
    dashboard: dashboardOf(raw),
    notify: { maxAttempts: raw.NOTIFY_MAX_ATTEMPTS, backoffMs: raw.NOTIFY_BACKOFF_MS },
    jobs: { lockMs: raw.JOB_LOCK_MS, reconcileIntervalMs: raw.RECONCILE_INTERVAL_MS },
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT_MS,
    /** Limits of the HTTP server against slow or numerous clients. */
    http: httpConfig(raw),
    /** `/metrics` on its own listener, off the public port, when set. */
    metrics:
      raw.METRICS_PORT === undefined
        ? undefined
        : { port: raw.METRICS_PORT, host: raw.METRICS_HOST },
    /** Jobs each worker process runs at once, per queue. */
    workerConcurrency: raw.WORKER_CONCURRENCY,
    /** The ERP sync. */
    sync: syncConfigFrom(raw),
    /** Values that must never reach a log line or an error answer. */
    secrets: secretsOf(raw, envShop),
  };
}

function publicUrlOf(raw: ServerEnv): string {
  // With PORT=0 (tests) and no PUBLIC_URL, the composition root fills in the real port.
  const url = raw.PUBLIC_URL ?? (raw.PORT === 0 ? '' : `http://localhost:${raw.PORT}`);
  return url.replace(/\/+$/, '');
}

function dashboardOf(raw: ServerEnv): { user: string; password: string } | undefined {
  return raw.DASHBOARD_USER !== undefined && raw.DASHBOARD_PASSWORD !== undefined
    ? { user: raw.DASHBOARD_USER, password: raw.DASHBOARD_PASSWORD }
    : undefined;
}

/**
 * Every set variable the schema flags secret, and the forms such a value takes inside another
 * (the platform's Basic header, each key of the keyring, the password of the ERP webhook's URL).
 */
function secretsOf(raw: ServerEnv, envShop: EnvShopConfig | undefined): string[] {
  return [
    ...new Set([
      ...secretValues(raw),
      ...(envShop ? platformSecrets(envShop.platform) : []),
      ...keyringSecrets(raw.SHOP_SECRET_KEYS),
      ...syncSecrets(raw),
    ]),
  ];
}

function shopsConfig(raw: ServerEnv) {
  return {
    /** SHOP_SECRET_KEYS as given (checked); parsed where the keys are used. */
    secretKeys: raw.SHOP_SECRET_KEYS,
    /** ADMIN_TOKEN: the admin API is off while unset. */
    adminToken: raw.ADMIN_TOKEN,
    /** How often each process looks for a change to the registry. */
    refreshMs: raw.SHOP_REFRESH_MS,
    /** Each shop's circuit breaker: failures in a row that open it, and its first cool-down. */
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
    /** Proxies in front whose X-Forwarded-For is trusted for the client address (0: none). */
    trustProxyHops: raw.TRUST_PROXY_HOPS,
    rateLimits: {
      windowMs: raw.RATE_LIMIT_WINDOW_SECONDS * 1000,
      /** Calls to the checkout route without the right token; the platform's never count. */
      checkoutFailures: raw.RATE_LIMIT_CHECKOUT_FAILURES,
      /** Failed webhook calls (bad signature, unknown provider); a delivered one only in flight. */
      webhookFailures: raw.RATE_LIMIT_WEBHOOK_FAILURES,
      /** Every request to the customer pages and the sandbox's buttons. */
      pages: raw.RATE_LIMIT_PAGES,
      /** Wrong dashboard passwords; the right one is never refused. */
      dashboardFailures: raw.RATE_LIMIT_DASHBOARD_FAILURES,
      /** Wrong admin tokens (the admin API), counted as the dashboard's. */
      adminFailures: raw.RATE_LIMIT_DASHBOARD_FAILURES,
    },
  };
}
