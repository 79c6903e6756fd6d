import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import {
  expiryMinutesVariable,
  maxInstallmentsVariable,
  paymentChoiceProblems,
  paymentMethodsVariable,
} from '../payments/payment-options';
import {
  httpUrl,
  providerApiProblem,
  providerDocumentFromEnv,
  providerSecretVariables,
  providerSettingsOf,
  providerVariableShape,
  PROVIDER_CHOICE,
  PROVIDER_NAMES,
  providerVariable,
  requiredProviderVariables,
  type ProviderName,
} from '../payments/provider-fields';
import { parseApiOrigins } from '../payments/provider-hosts';
import { parseKeyring } from '../shops/secret-box';
import { checkoutRoutePath, ENV_SHOP_ID } from '../shops/shop-id';
import { parseRedisUrl, RedisUrlError } from '../redis-url';
import {
  providerSecrets as providerSecretsOf,
  type ProviderSettings,
} from '../payments/provider-fields';

/**
 * Variables whose values are secrets: never logged, never echoed in an error, and kept in the
 * Kubernetes Secret rather than the ConfigMap (.ci/manifests-check.mjs reads this list).
 */
export const SECRET_VARIABLES = [
  'PLATFORM_PASSWORD',
  'PLATFORM_API_KEY',
  'CHECKOUT_ROUTE_TOKEN',
  'DASHBOARD_PASSWORD',
  ...providerSecretVariables(),
  'ERP_WEBHOOK_SECRET',
  'SHOP_SECRET_KEYS',
  'ADMIN_TOKEN',
  'REDIS_SENTINEL_PASSWORD',
];

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().min(0);

/** `5m`, `30s`, `1h`, `500ms` (or a bare number of milliseconds) as milliseconds. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h)?$/;
const duration = z
  .string()
  .regex(DURATION, 'must be a duration such as 30s, 5m or 1h')
  .transform((text) => {
    const [, digits = '0', unit = 'ms'] = DURATION.exec(text) ?? [];
    return Number(digits) * UNIT_MS[unit as keyof typeof UNIT_MS];
  })
  .refine((ms) => ms >= 1000, 'must be at least 1s');

/** The ERP sync's variables: shared by the server and `connector sync`. */
const syncShape = {
  SYNC_INTERVAL: duration.optional(),
  SYNC_STATUSES: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be status codes separated by commas, such as 4,6')
    .transform((text) => [...new Set(text.split(',').map(Number))]),
  ERP_SINK: z.enum(['webhook', 'directory'], { error: 'must be webhook or directory' }).optional(),
  ERP_WEBHOOK_URL: httpUrl.optional(),
  ERP_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  ERP_WEBHOOK_TIMEOUT_MS: positiveInt,
  ERP_EXPORT_DIR: z.string().min(1).optional(),
};

type SyncEnv = z.output<z.ZodObject<typeof syncShape>>;

/** The ERP sink's settings, from ERP_SINK and the variables it needs. */
export type ErpSinkConfig =
  | { kind: 'webhook'; url: string; secret: string; timeoutMs: number }
  | { kind: 'directory'; dir: string };

export interface SyncConfig {
  /** How often a pass runs; undefined: no scheduled passes (SYNC_INTERVAL unset). */
  intervalMs: number | undefined;
  statuses: number[];
  /** Undefined while ERP_SINK is unset: no sync at all, and paid services trigger nothing. */
  sink: ErpSinkConfig | undefined;
}

/** Reports each variable of `names` that `env` lacks as required by `choice` (e.g. ERP_SINK=webhook). */
function requireFor(
  env: Record<string, unknown>,
  ctx: z.RefinementCtx,
  names: readonly string[],
  choice: string,
): void {
  for (const name of names) {
    if (env[name] === undefined)
      ctx.addIssue({ code: 'custom', path: [name], message: `is required with ${choice}` });
  }
}

/** Problems of the sync's variables taken together, as the schemas' refinements report them. */
function syncIssues(env: SyncEnv, ctx: z.RefinementCtx): void {
  const needs: Record<'webhook' | 'directory', Array<keyof SyncEnv>> = {
    webhook: ['ERP_WEBHOOK_URL', 'ERP_WEBHOOK_SECRET'],
    directory: ['ERP_EXPORT_DIR'],
  };
  if (env.ERP_SINK) {
    requireFor(env, ctx, needs[env.ERP_SINK], `ERP_SINK=${env.ERP_SINK}`);
  } else if (env.SYNC_INTERVAL !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['ERP_SINK'],
      message: 'is required with SYNC_INTERVAL: say where services go (webhook or directory)',
    });
  }
}

function syncConfigFrom(env: SyncEnv): SyncConfig {
  const sink: ErpSinkConfig | undefined =
    env.ERP_SINK === 'webhook' && env.ERP_WEBHOOK_URL && env.ERP_WEBHOOK_SECRET
      ? {
          kind: 'webhook',
          url: env.ERP_WEBHOOK_URL,
          secret: env.ERP_WEBHOOK_SECRET,
          timeoutMs: env.ERP_WEBHOOK_TIMEOUT_MS,
        }
      : env.ERP_SINK === 'directory' && env.ERP_EXPORT_DIR
        ? { kind: 'directory', dir: path.resolve(env.ERP_EXPORT_DIR) }
        : undefined;
  return { intervalMs: env.SYNC_INTERVAL, statuses: env.SYNC_STATUSES, sink };
}

/** The sync's secrets, and the webhook URL's own credentials when it carries some. */
function syncSecrets(env: SyncEnv): string[] {
  const secrets = env.ERP_WEBHOOK_SECRET ? [env.ERP_WEBHOOK_SECRET] : [];
  if (env.ERP_WEBHOOK_URL) {
    const url = new URL(env.ERP_WEBHOOK_URL);
    if (url.password) secrets.push(decodeURIComponent(url.password));
  }
  return secrets;
}

/** The platform's host, every shop's: global. */
const platformHostShape = {
  PLATFORM_BASE_URL: httpUrl,
  PLATFORM_TIMEOUT_MS: positiveInt,
  PLATFORM_PAGE_SIZE: positiveInt.max(1000),
};

/** One shop's platform account: the env shop's, when PLATFORM_EMAIL is set. */
const platformAccountShape = {
  PLATFORM_EMAIL: z.string().min(1),
  PLATFORM_PASSWORD: z.string().min(1),
  PLATFORM_API_KEY: z.string().min(1),
};

const platformShape = { ...platformHostShape, ...platformAccountShape };

const routeToken = z.string().min(16, 'must be at least 16 characters');

/**
 * The env shop's own variables (CONTRACT "Shops"): its platform account, route token, and
 * provider with the provider's settings, which are declared beside the adapters
 * (src/payments/provider-fields.ts). All optional here: PLATFORM_EMAIL says whether there is an
 * env shop, and then the rest is required (`envShopIssues`).
 */
const envShopShape = {
  PLATFORM_EMAIL: platformAccountShape.PLATFORM_EMAIL.optional(),
  PLATFORM_PASSWORD: platformAccountShape.PLATFORM_PASSWORD.optional(),
  PLATFORM_API_KEY: platformAccountShape.PLATFORM_API_KEY.optional(),
  CHECKOUT_ROUTE_PATH: z.string().regex(/^\/[A-Za-z0-9/_.-]*$/, 'must be a path starting with /'),
  CHECKOUT_ROUTE_TOKEN: routeToken.optional(),
  PAYMENT_PROVIDER: z.enum(PROVIDER_NAMES as [ProviderName, ...ProviderName[]], {
    error: `must be ${PROVIDER_CHOICE}`,
  }),
  // STRIPE_SECRET_KEY, MERCADOPAGO_ACCESS_TOKEN, ASAAS_API_KEY...: every provider's fields.
  ...providerVariableShape(),
  // How the env shop's customers may pay (src/payments/payment-options.ts).
  PAYMENT_METHODS: paymentMethodsVariable.optional(),
  CARD_MAX_INSTALLMENTS: maxInstallmentsVariable.optional(),
};

type EnvShopEnv = z.output<z.ZodObject<typeof envShopShape>>;

/** The variable of each part of the env shop's payment choice. */
const PAYMENT_VARIABLES = {
  methods: 'PAYMENT_METHODS',
  maxInstallments: 'CARD_MAX_INSTALLMENTS',
  expiryMinutes: 'CHECKOUT_EXPIRY_MINUTES',
} as const;

/**
 * With PLATFORM_EMAIL, the env shop's other variables are required, and its provider must honour
 * its payment choice; without, none may be set.
 */
function envShopIssues(env: EnvShopEnv, expiryMinutes: number, ctx: z.RefinementCtx): void {
  const account = ['PLATFORM_PASSWORD', 'PLATFORM_API_KEY', 'CHECKOUT_ROUTE_TOKEN'] as const;
  if (env.PLATFORM_EMAIL === undefined) {
    const stray = account.filter((name) => env[name] !== undefined);
    if (stray.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['PLATFORM_EMAIL'],
        message: `is required with ${stray.join(', ')}: it defines the env shop (unset them all to serve registry shops only)`,
      });
    }
    return;
  }
  requireFor(env, ctx, account, 'PLATFORM_EMAIL (the env shop)');
  requireFor(
    env,
    ctx,
    requiredProviderVariables(env.PAYMENT_PROVIDER),
    `PAYMENT_PROVIDER=${env.PAYMENT_PROVIDER}`,
  );
  const choice = {
    methods: env.PAYMENT_METHODS,
    maxInstallments: env.CARD_MAX_INSTALLMENTS,
    expiryMinutes,
  };
  for (const { part, problem } of paymentChoiceProblems(env.PAYMENT_PROVIDER, choice)) {
    ctx.addIssue({ code: 'custom', path: [PAYMENT_VARIABLES[part]], message: problem });
  }
}

/**
 * PROVIDER_API_ORIGINS: the origins a provider may be sent to besides its official hosts (a
 * loopback fake in tests, a proxy of the operator's), for the env shop and every shop document.
 */
const providerApiOrigins = z
  .string()
  .superRefine((text, ctx) => {
    for (const problem of parseApiOrigins(text).problems)
      ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((text) => parseApiOrigins(text).origins)
  .optional();

/** The env shop's provider API URL (MERCADOPAGO_API_URL...) under the same rule as a document's. */
function envShopApiIssues(
  env: EnvShopEnv & { PROVIDER_API_ORIGINS?: string[] },
  ctx: z.RefinementCtx,
): void {
  if (env.PLATFORM_EMAIL === undefined) return;
  const variable = providerVariable(env.PAYMENT_PROVIDER, 'apiUrl');
  const apiUrl = (env as Record<string, unknown>)[variable];
  // Not a URL at all: its own schema said so already.
  if (typeof apiUrl !== 'string' || !httpUrl.safeParse(apiUrl).success) return;
  const problem = providerApiProblem(
    { name: env.PAYMENT_PROVIDER, apiUrl },
    env.PROVIDER_API_ORIGINS ?? [],
  );
  if (problem) ctx.addIssue({ code: 'custom', path: [variable], message: problem });
}

/** The registry's variables: the keyring of the shops' secrets, the admin API's token. */
const registryShape = {
  SHOP_SECRET_KEYS: z
    .string()
    .superRefine((text, ctx) => {
      const keyring = parseKeyring(text);
      if ('problems' in keyring)
        for (const problem of keyring.problems) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  SHOP_REFRESH_MS: positiveInt
    .min(100)
    .max(4000, 'must be at most 4000: a change reaches every process within 5 s'),
  SHOP_BREAKER_FAILURES: positiveInt.max(1000),
  SHOP_BREAKER_COOLDOWN_MS: positiveInt.min(100).max(600_000),
};

const commonShape = {
  NODE_ENV: z.enum(['production', 'development', 'test']),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
};

/** Where Redis is (REDIS_URL: one of three forms), the key prefix, a Sentinel's own password. */
const redisShape = {
  REDIS_URL: z.string().superRefine((url, ctx) => {
    const problem = redisUrlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only'),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
};

/** What is wrong with a REDIS_URL, or undefined when this release can use it. */
function redisUrlProblem(url: string): string | undefined {
  try {
    parseRedisUrl(url);
    return undefined;
  } catch (error) {
    if (error instanceof RedisUrlError) return error.problem;
    throw error;
  }
}

/** Redis as every process and command connects to it (src/infra/redis.ts builds the clients). */
export interface RedisConfig {
  url: string;
  prefix: string;
  /** REDIS_SENTINEL_PASSWORD: the Sentinels' own password, when they have one. */
  sentinelPassword?: string;
}

function redisConfig(raw: z.infer<z.ZodObject<typeof redisShape>>): RedisConfig {
  return {
    url: raw.REDIS_URL,
    prefix: raw.QUEUE_PREFIX,
    ...(raw.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: raw.REDIS_SENTINEL_PASSWORD } : {}),
  };
}

const serverShape = {
  ...commonShape,
  ...platformHostShape,
  ...envShopShape,
  ...registryShape,
  ROLE: z.enum(['all', 'api', 'worker']),
  PORT: port,
  PUBLIC_URL: httpUrl.optional(),
  PROVIDER_API_ORIGINS: providerApiOrigins,
  ...redisShape,
  SANDBOX_IN_PRODUCTION: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  CHECKOUT_EXPIRY_MINUTES: expiryMinutesVariable,
  CURRENCY: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as BRL'),
  DASHBOARD_USER: z.string().min(1).optional(),
  DASHBOARD_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  NOTIFY_MAX_ATTEMPTS: positiveInt,
  NOTIFY_BACKOFF_MS: positiveInt,
  // BullMQ renews a running job's lock every JOB_LOCK_MS / 2, so the lock bounds no job's run
  // time: it says how soon a dead worker's jobs are taken up again (within JOB_LOCK_MS plus a
  // stalled-job check). Below 5 s a renewal could come late on a busy event loop, and another
  // worker would run the job a second time.
  JOB_LOCK_MS: positiveInt.min(
    5000,
    'must be at least 5000: a running job renews its lock every JOB_LOCK_MS / 2, and a renewal late on a busy event loop would let another worker run it a second time',
  ),
  RECONCILE_INTERVAL_MS: positiveInt.min(100),
  SHUTDOWN_TIMEOUT_MS: positiveInt,
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.min(100),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.min(100),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt,
  HTTP_MAX_CONNECTIONS: positiveInt,
  TRUST_PROXY_HOPS: nonNegativeInt.max(10),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.max(3600),
  RATE_LIMIT_CHECKOUT_FAILURES: nonNegativeInt,
  RATE_LIMIT_WEBHOOK_FAILURES: nonNegativeInt,
  RATE_LIMIT_PAGES: nonNegativeInt,
  RATE_LIMIT_DASHBOARD_FAILURES: nonNegativeInt,
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().min(1),
  WORKER_CONCURRENCY: positiveInt.max(200),
  ...syncShape,
};

/** https, or http on a loopback address (a local trial, a test). */
function isSafePublicUrl(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return (
    protocol === 'https:' ||
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}

const serverSchema = z.object(serverShape).superRefine((env, ctx) => {
  if (
    env.NODE_ENV === 'production' &&
    env.PLATFORM_EMAIL !== undefined &&
    env.PAYMENT_PROVIDER === 'sandbox' &&
    env.SANDBOX_IN_PRODUCTION !== 'true'
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['PAYMENT_PROVIDER'],
      message:
        'the sandbox takes no real money and refuses NODE_ENV=production; choose a real provider, or set SANDBOX_IN_PRODUCTION=true on purpose for a staging platform',
    });
  }
  if (env.NODE_ENV === 'production' && env.PUBLIC_URL && !isSafePublicUrl(env.PUBLIC_URL)) {
    ctx.addIssue({
      code: 'custom',
      path: ['PUBLIC_URL'],
      message:
        'must be https in production (customers and providers reach it over the internet); only a loopback address may be http',
    });
  }
  envShopIssues(env, env.CHECKOUT_EXPIRY_MINUTES, ctx);
  envShopApiIssues(env, ctx);
  syncIssues(env, ctx);
  if ((env.DASHBOARD_USER === undefined) !== (env.DASHBOARD_PASSWORD === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['DASHBOARD_PASSWORD'],
      message: 'DASHBOARD_USER and DASHBOARD_PASSWORD go together: set both or neither',
    });
  }
});
const platformSchema = z.object({ ...commonShape, ...platformShape });

/** Every variable the connector reads, for the .env.example sync test and the docs. */
export const CONFIG_VARIABLES = Object.keys(serverShape);

/** The platform's host: every shop's. */
export interface PlatformHostConfig {
  baseUrl: string;
  timeoutMs: number;
  pageSize: number;
}

/** One shop's platform account. */
export interface PlatformAccount {
  email: string;
  password: string;
  apiKey: string;
}

export type PlatformConfig = PlatformHostConfig & PlatformAccount;

/** The env shop (PLATFORM_EMAIL and the rest): served as a single-shop deployment always was. */
export interface EnvShopConfig {
  platform: PlatformAccount;
  routePath: string;
  routeToken: string;
  provider: ProviderSettings;
}

export interface LogConfig {
  level: string;
  format: 'json' | 'pretty';
}

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

/** Raised when the environment is invalid; `problems` holds one line per variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/**
 * Merges, lowest first: config/defaults.env, the .env file in `cwd` (when present), then `env`.
 * Empty values count as unset, as they do in most .env tooling.
 */
export function readEnvironment(env: Env, cwd = process.cwd()): Env {
  const merged: Env = {};
  const layers = [
    readEnvFile(path.join(__dirname, '..', '..', 'config', 'defaults.env')),
    readEnvFile(path.join(cwd, '.env')),
    env,
  ];
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer))
      if (value !== undefined && value !== '') merged[key] = value;
  }
  return merged;
}

function readEnvFile(file: string): Env {
  try {
    return parseEnv(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

function parseOrThrow<T>(schema: z.ZodType<T>, env: Env): T {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      // A variable's own name, also for a problem inside its value (PAYMENT_METHODS' second item).
      const name = String(issue.path[0] ?? '');
      const missing = issue.code === 'invalid_type' && env[name] === undefined;
      return `${name}: ${missing ? 'is required' : issue.message}`;
    }),
  );
}

function logConfig(env: z.infer<z.ZodObject<typeof commonShape>>): LogConfig {
  const pretty = env.NODE_ENV !== 'production' && process.stdout.isTTY === true;
  return { level: env.LOG_LEVEL, format: env.LOG_FORMAT ?? (pretty ? 'pretty' : 'json') };
}

function platformHostConfig(
  env: z.infer<z.ZodObject<typeof platformHostShape>>,
): PlatformHostConfig {
  return {
    baseUrl: env.PLATFORM_BASE_URL.replace(/\/+$/, ''),
    timeoutMs: env.PLATFORM_TIMEOUT_MS,
    pageSize: env.PLATFORM_PAGE_SIZE,
  };
}

function platformConfig(env: z.infer<typeof platformSchema>): PlatformConfig {
  return {
    ...platformHostConfig(env),
    email: env.PLATFORM_EMAIL,
    password: env.PLATFORM_PASSWORD,
    apiKey: env.PLATFORM_API_KEY,
  };
}

/** The values of a platform account that must never be logged, the Basic header's among them. */
export function platformSecrets(platform: PlatformAccount): string[] {
  const basic = Buffer.from(`${platform.email}:${platform.password}`).toString('base64');
  return [platform.password, platform.apiKey, basic];
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
    shops: {
      secretKeys: raw.SHOP_SECRET_KEYS,
      adminToken: raw.ADMIN_TOKEN,
      refreshMs: raw.SHOP_REFRESH_MS,
      breaker: {
        failures: raw.SHOP_BREAKER_FAILURES,
        cooldownMs: raw.SHOP_BREAKER_COOLDOWN_MS,
      },
    },
    checkout: {
      sandboxInProduction,
      currency: raw.CURRENCY,
      expiryMs: raw.CHECKOUT_EXPIRY_MINUTES * 60_000,
    },
    dashboard,
    notify: { maxAttempts: raw.NOTIFY_MAX_ATTEMPTS, backoffMs: raw.NOTIFY_BACKOFF_MS },
    jobs: { lockMs: raw.JOB_LOCK_MS, reconcileIntervalMs: raw.RECONCILE_INTERVAL_MS },
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT_MS,
    http: {
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
    },
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
      ...(raw.SHOP_SECRET_KEYS ? [raw.SHOP_SECRET_KEYS, ...keyMaterial(raw.SHOP_SECRET_KEYS)] : []),
      ...(raw.ADMIN_TOKEN ? [raw.ADMIN_TOKEN] : []),
    ],
  };
  return deepFreeze(config);
}

/** The base64 of each key of SHOP_SECRET_KEYS: never logged. */
function keyMaterial(text: string): string[] {
  return text.split(',').map((entry) => entry.slice(entry.indexOf(':') + 1).trim());
}

function envShopConfig(
  raw: z.output<typeof serverSchema>,
  sandboxInProduction: boolean,
): EnvShopConfig | undefined {
  const { PLATFORM_EMAIL, PLATFORM_PASSWORD, PLATFORM_API_KEY, CHECKOUT_ROUTE_TOKEN } = raw;
  if (!PLATFORM_EMAIL || !PLATFORM_PASSWORD || !PLATFORM_API_KEY || !CHECKOUT_ROUTE_TOKEN)
    return undefined;
  const provider = providerSettingsOf(
    providerDocumentFromEnv(raw.PAYMENT_PROVIDER, raw),
    raw.PAYMENT_PROVIDER === 'sandbox' && sandboxInProduction,
    { methods: raw.PAYMENT_METHODS, maxInstallments: raw.CARD_MAX_INSTALLMENTS },
  );
  return {
    platform: { email: PLATFORM_EMAIL, password: PLATFORM_PASSWORD, apiKey: PLATFORM_API_KEY },
    routePath: raw.CHECKOUT_ROUTE_PATH,
    routeToken: CHECKOUT_ROUTE_TOKEN,
    provider,
  };
}

/** Only what the CLI's queue commands need: Redis and the key prefix. Throws ConfigError. */
export function loadQueueConfig(env: Env = process.env, cwd?: string): { redis: RedisConfig } {
  const raw = parseOrThrow(z.object(redisShape), readEnvironment(env, cwd));
  return { redis: redisConfig(raw) };
}

/**
 * Only what `checkout start` needs: where the connector's checkout route is, its token, and
 * Redis (to read the checkout's URL). The env shop's route is CHECKOUT_ROUTE_PATH with
 * CHECKOUT_ROUTE_TOKEN; a registry shop's is `/shops/<id>/checkout` with SHOP_ROUTE_TOKEN (the
 * token `shops add` or `rotate-token` printed: the registry keeps only its hash). Throws
 * ConfigError.
 */
export function loadCheckoutRouteConfig(
  env: Env = process.env,
  cwd?: string,
  shop: string = ENV_SHOP_ID,
): {
  connectorUrl: string;
  routePath: string;
  routeToken: string;
  redis: RedisConfig;
  secrets: string[];
} {
  const tokenVariable = shop === ENV_SHOP_ID ? 'CHECKOUT_ROUTE_TOKEN' : 'SHOP_ROUTE_TOKEN';
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
        if (raw[tokenVariable] !== undefined) return;
        ctx.addIssue({
          code: 'custom',
          path: [tokenVariable],
          message:
            shop === ENV_SHOP_ID
              ? 'is required'
              : `is required: shop ${shop}'s route token, as \`shops add\` or \`rotate-token\` printed it`,
        });
      }),
    readEnvironment(env, cwd),
  );
  const route = {
    path: shop === ENV_SHOP_ID ? raw.CHECKOUT_ROUTE_PATH : checkoutRoutePath(shop),
    token: raw[tokenVariable] ?? '',
  };
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

/** What `connector shops` needs: Redis, the keyring, the platform's host, and the public URL. */
export interface ShopsCliConfig {
  env: Config['env'];
  log: LogConfig;
  redis: RedisConfig;
  platform: PlatformHostConfig;
  publicUrl: string;
  shops: { secretKeys: string | undefined };
  sandboxAllowed: boolean;
  /** PROVIDER_API_ORIGINS: where a shop document's provider may be sent besides its official hosts. */
  providerApiOrigins: readonly string[];
  secrets: string[];
}

/**
 * Only what `connector shops` needs (CONTRACT "Shops"). SHOP_SECRET_KEYS is required by the verbs
 * that seal or open secrets (`needsKeys`). Throws ConfigError.
 */
export function loadShopsConfig(
  env: Env = process.env,
  options: { needsKeys: boolean; cwd?: string },
): ShopsCliConfig {
  const raw = parseOrThrow(
    z
      .object({
        ...commonShape,
        ...platformHostShape,
        PORT: serverShape.PORT,
        PUBLIC_URL: serverShape.PUBLIC_URL,
        ...redisShape,
        SHOP_SECRET_KEYS: registryShape.SHOP_SECRET_KEYS,
        SANDBOX_IN_PRODUCTION: serverShape.SANDBOX_IN_PRODUCTION,
        PROVIDER_API_ORIGINS: serverShape.PROVIDER_API_ORIGINS,
      })
      .superRefine((raw, ctx) => {
        if (options.needsKeys && raw.SHOP_SECRET_KEYS === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['SHOP_SECRET_KEYS'],
            message: "is required: the registry keeps the shops' secrets encrypted with it",
          });
      }),
    readEnvironment(env, options.cwd),
  );
  return deepFreeze({
    env: raw.NODE_ENV,
    log: logConfig(raw),
    redis: redisConfig(raw),
    platform: platformHostConfig(raw),
    publicUrl: (raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
    shops: { secretKeys: raw.SHOP_SECRET_KEYS },
    sandboxAllowed: raw.NODE_ENV !== 'production' || raw.SANDBOX_IN_PRODUCTION === 'true',
    providerApiOrigins: raw.PROVIDER_API_ORIGINS ?? [],
    secrets: raw.SHOP_SECRET_KEYS
      ? [raw.SHOP_SECRET_KEYS, ...keyMaterial(raw.SHOP_SECRET_KEYS)]
      : [],
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
  const raw = parseOrThrow(platformSchema, readEnvironment(env, cwd));
  const platform = platformConfig(raw);
  return deepFreeze({ platform, log: logConfig(raw), secrets: platformSecrets(platform) });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
