import { providerSecrets as providerSecretsOf } from '../payments/provider-fields';
import { logConfig, type LogConfig } from './common-config';
import { envShopConfig, type EnvShopConfig } from './env-shop-config';
import { deepFreeze, parseOrThrow, readEnvironment, type Env } from './env-values';
import { platformHostConfig, platformSecrets, type PlatformHostConfig } from './platform-config';
import { redisConfig, type RedisConfig } from './redis-config';
import { keyringSecrets } from './registry-config';
import { serverSchema, type ServerEnv } from './server-schema';
import { syncConfigFrom, syncSecrets, type SyncConfig } from './sync-config';

export interface Config {
  env: 'production' | 'development' | 'test';
  role: 'all' | 'api' | 'worker';
  port: number;
  /** Empty only when PORT is 0 and PUBLIC_URL unset: then it is the listening address. */
  publicUrl: string;
  log: LogConfig;
  redis: RedisConfig;
  platform: PlatformHostConfig;
  /** The env shop; undefined without PLATFORM_EMAIL (registry shops only). */
  envShop: EnvShopConfig | undefined;
  /** PROVIDER_API_ORIGINS: where a provider may be sent besides its official hosts. */
  providerApiOrigins: readonly string[];
  /** The registry of shops added at run time. */
  shops: {
    /** SHOP_SECRET_KEYS as given (checked); parsed where the keys are used. */
    secretKeys: string | undefined;
    /** ADMIN_TOKEN: the admin API is off while unset. */
    adminToken: string | undefined;
    /** How often each process looks for a change to the registry. */
    refreshMs: number;
    /** Each shop's circuit breaker: failures in a row that open it, and its first cool-down. */
    breaker: { failures: number; cooldownMs: number };
  };
  checkout: {
    /** The sandbox may run under NODE_ENV=production (SANDBOX_IN_PRODUCTION=true: staging). */
    sandboxInProduction: boolean;
    currency: string;
    expiryMs: number;
  };
  dashboard: { user: string; password: string } | undefined;
  notify: { maxAttempts: number; backoffMs: number };
  jobs: { lockMs: number; reconcileIntervalMs: number };
  shutdownTimeoutMs: number;
  /** Limits of the HTTP server against slow or numerous clients. */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
    /** Proxies in front whose X-Forwarded-For is trusted for the client address (0: none). */
    trustProxyHops: number;
    rateLimits: RateLimitConfig;
  };
  /** `/metrics` on its own listener, off the public port, when set. */
  metrics: { port: number; host: string } | undefined;
  /** Jobs each worker process runs at once, per queue. */
  workerConcurrency: number;
  /** The ERP sync. */
  sync: SyncConfig;
  /** Values that must never reach a log line or an error answer. */
  secrets: string[];
}

/** Per client address, per window; 0 turns a limit off. */
export interface RateLimitConfig {
  windowMs: number;
  /** Calls to the checkout route without the right token; the platform's never count. */
  checkoutFailures: number;
  /** Failed webhook calls (bad signature, unknown provider); a delivered one only in flight. */
  webhookFailures: number;
  /** Every request to the customer pages and the sandbox's buttons. */
  pages: number;
  /** Wrong dashboard passwords; the right one is never refused. */
  dashboardFailures: number;
  /** Wrong admin tokens (the admin API), counted as the dashboard's. */
  adminFailures: number;
}

/** The whole, frozen configuration of the server process. Throws ConfigError. */
export function loadConfig(env: Env = process.env, cwd?: string): Config {
  const raw = parseOrThrow(serverSchema, readEnvironment(env, cwd));
  const dashboard =
    raw.DASHBOARD_USER !== undefined && raw.DASHBOARD_PASSWORD !== undefined
      ? { user: raw.DASHBOARD_USER, password: raw.DASHBOARD_PASSWORD }
      : undefined;
  const sandboxInProduction = raw.NODE_ENV === 'production' && raw.SANDBOX_IN_PRODUCTION === 'true';
  const envShop = envShopConfig(raw, sandboxInProduction);
  const config: Config = {
    env: raw.NODE_ENV,
    role: raw.ROLE,
    port: raw.PORT,
    // With PORT=0 (tests) and no PUBLIC_URL, the composition root fills in the real port.
    publicUrl: (raw.PUBLIC_URL ?? (raw.PORT === 0 ? '' : `http://localhost:${raw.PORT}`)).replace(
      /\/+$/,
      '',
    ),
    log: logConfig(raw),
    redis: redisConfig(raw),
    platform: platformHostConfig(raw),
    envShop,
    providerApiOrigins: raw.PROVIDER_API_ORIGINS ?? [],
    shops: shopsConfig(raw),
    checkout: {
      sandboxInProduction,
      currency: raw.CURRENCY,
      expiryMs: raw.CHECKOUT_EXPIRY_MINUTES * 60_000,
    },
    dashboard,
    notify: { maxAttempts: raw.NOTIFY_MAX_ATTEMPTS, backoffMs: raw.NOTIFY_BACKOFF_MS },
    jobs: { lockMs: raw.JOB_LOCK_MS, reconcileIntervalMs: raw.RECONCILE_INTERVAL_MS },
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT_MS,
    http: httpConfig(raw),
    metrics:
      raw.METRICS_PORT === undefined
        ? undefined
        : { port: raw.METRICS_PORT, host: raw.METRICS_HOST },
    workerConcurrency: raw.WORKER_CONCURRENCY,
    sync: syncConfigFrom(raw),
    secrets: [
      ...syncSecrets(raw),
      ...(envShop ? [...platformSecrets(envShop.platform), envShop.routeToken] : []),
      ...(envShop ? providerSecretsOf(envShop.provider) : []),
      ...(dashboard ? [dashboard.password] : []),
      ...keyringSecrets(raw.SHOP_SECRET_KEYS),
      ...(raw.ADMIN_TOKEN ? [raw.ADMIN_TOKEN] : []),
    ],
  };
  return deepFreeze(config);
}

function shopsConfig(raw: ServerEnv): Config['shops'] {
  return {
    secretKeys: raw.SHOP_SECRET_KEYS,
    adminToken: raw.ADMIN_TOKEN,
    refreshMs: raw.SHOP_REFRESH_MS,
    breaker: {
      failures: raw.SHOP_BREAKER_FAILURES,
      cooldownMs: raw.SHOP_BREAKER_COOLDOWN_MS,
    },
  };
}

function httpConfig(raw: ServerEnv): Config['http'] {
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
      adminFailures: raw.RATE_LIMIT_DASHBOARD_FAILURES,
    },
  };
}
