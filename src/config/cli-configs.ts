import { z } from 'zod';
import { parseRedisUrl, redactedRedisUrl, RedisUrlError } from '../redis-url';
import { shopOrEnv } from '../shop/shop-id';
import { commonShape, logConfig, type LogConfig } from './common-config';
import {
  checkoutRouteOf,
  envShopApiIssues,
  envShopConfig,
  envShopIssues,
  envShopShape,
  routeToken,
  type EnvShopConfig,
} from './env-shop-config';
import {
  checkoutRetentionDays,
  ConfigError,
  deepFreeze,
  parseOrThrow,
  readEnvironment,
  type Env,
} from './env-values';
import {
  platformConfig,
  platformHostConfig,
  platformSecrets,
  platformShape,
  platformAccountShape,
  platformHostShape,
  type PlatformAccount,
  type PlatformConfig,
  type PlatformHostConfig,
} from './platform-config';
import { redisConfig, redisShape, type RedisConfig } from './redis-config';
import { keyringSecrets } from './registry-config';
import { secretValues } from './secret-variables';
import { loadConfig } from './server-config';
import { serverShape } from './server-schema';
import { loadShopsConfig, type ShopsCliConfig } from './shops-cli-config';
import { syncConfigFrom, syncIssues, syncSecrets, syncShape } from './sync-config';
import type { ErpSinkConfig, SyncConfig } from './sync-config';

/** Only what the CLI's queue commands need: Redis and the key prefix. Throws ConfigError. */
export function loadQueueConfig(env: Env = process.env, cwd?: string): { redis: RedisConfig } {
  const raw = parseOrThrow(z.object(redisShape), readEnvironment(env, cwd));
  return { redis: redisConfig(raw) };
}

/** What `connector migrate` needs: Redis, and how long checkout records are kept. */
export function loadMigrateConfig(
  env: Env = process.env,
  cwd?: string,
): { redis: RedisConfig; retentionMs: number } {
  const raw = parseOrThrow(
    z.object({ ...redisShape, CHECKOUT_RETENTION_DAYS: checkoutRetentionDays }),
    readEnvironment(env, cwd),
  );
  return { redis: redisConfig(raw), retentionMs: raw.CHECKOUT_RETENTION_DAYS * 86_400_000 };
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

/** A variable the server would refuse to start with, and why (as `loadConfig` says it, exit 78). */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

/**
 * What `connector doctor` checks, read as leniently as the environment allows: doctor is what an
 * operator runs when the configuration is wrong, so nothing here throws ConfigError. `problems`
 * are what the server would refuse to start with (exit 78), each once: its own reading, and each
 * part's (the server's stops before its refinements when a variable does not parse). A part is
 * undefined (or `invalid`) when one of its variables has a problem, so the checks that need it
 * do not run and the others still do.
 */
export interface DoctorConfig {
  env: 'production' | 'development' | 'test';
  problems: ConfigProblem[];
  /** Undefined when REDIS_URL, QUEUE_PREFIX or REDIS_SENTINEL_PASSWORD has a problem. */
  redis: RedisConfig | undefined;
  /** REDIS_URL as a line may show it (any of its forms): its password replaced. */
  redisShown: string;
  log: LogConfig;
  /** Undefined when PLATFORM_BASE_URL is unset or one of the platform's variables is wrong. */
  platform: PlatformHostConfig | undefined;
  /** The env shop's platform account; undefined without all three of its variables. */
  platformAccount: PlatformAccount | undefined;
  /** The env shop; `none` without PLATFORM_EMAIL, `invalid` when its variables have problems. */
  envShop: EnvShopConfig | 'none' | 'invalid';
  /** What the registry's verbs need (`connector shops`); undefined when a variable is wrong. */
  shops: ShopsCliConfig | undefined;
  /** Every secret value the environment holds, in every form: nothing doctor prints has one. */
  secrets: string[];
}

const envShopSchema = z
  .object({
    ...envShopShape,
    PROVIDER_API_ORIGINS: serverShape.PROVIDER_API_ORIGINS,
    CHECKOUT_EXPIRY_MINUTES: serverShape.CHECKOUT_EXPIRY_MINUTES,
  })
  .superRefine((raw, ctx) => {
    envShopIssues(raw, raw.CHECKOUT_EXPIRY_MINUTES, ctx);
    envShopApiIssues(raw, ctx);
  });

/** `connector doctor`'s reading of the environment (see DoctorConfig); never throws ConfigError. */
export function loadDoctorConfig(env: Env = process.env, cwd?: string): DoctorConfig {
  const raw = readEnvironment(env, cwd);
  // Each problem once, though the server's reading and a part's both say it.
  const problems = new Map<string, ConfigProblem>();
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const line of error.problems) problems.set(line, problemOf(line));
      return undefined;
    }
  };
  const part = <T, R>(schema: z.ZodType<T>, shape: (parsed: T) => R): R | undefined =>
    attempt(() => shape(parseOrThrow(schema, raw)));
  // The server's reading first; a part's object schema says what its refinements did not reach.
  attempt(() => loadConfig(env, cwd));
  const account = z.object(platformAccountShape).safeParse(raw);
  const url = raw.REDIS_URL ?? '';
  const config = {
    env:
      z.object({ NODE_ENV: commonShape.NODE_ENV }).safeParse(raw).data?.NODE_ENV ?? 'development',
    redis: part(z.object(redisShape), redisConfig),
    redisShown: redactedRedisUrl(url),
    log: z.object(commonShape).transform(logConfig).safeParse(raw).data ?? LOG_FALLBACK,
    platform: part(z.object(platformHostShape), platformHostConfig),
    platformAccount: account.data && {
      email: account.data.PLATFORM_EMAIL,
      password: account.data.PLATFORM_PASSWORD,
      apiKey: account.data.PLATFORM_API_KEY,
    },
    envShop: part(envShopSchema, envShopConfig) ?? (raw.PLATFORM_EMAIL ? 'invalid' : 'none'),
    shops: attempt(() => loadShopsConfig(env, { needsKeys: false, needsPlatform: false, cwd })),
    secrets: [
      ...secretValues(raw),
      ...keyringSecrets(raw.SHOP_SECRET_KEYS),
      ...(raw.PLATFORM_PASSWORD === undefined
        ? []
        : platformSecrets({
            email: raw.PLATFORM_EMAIL ?? '',
            password: raw.PLATFORM_PASSWORD,
            apiKey: raw.PLATFORM_API_KEY ?? '',
          })),
      redisPassword(url),
    ].filter((value) => value !== ''),
  } as const;
  return { ...config, problems: [...problems.values()] };
}

const LOG_FALLBACK: LogConfig = { level: 'info', format: 'json' };

/** `VARIABLE: problem`, as parseOrThrow says it, taken apart. */
function problemOf(line: string): ConfigProblem {
  const at = line.indexOf(': ');
  return at < 0
    ? { variable: '', problem: line }
    : { variable: line.slice(0, at), problem: line.slice(at + 2) };
}

/** The password REDIS_URL holds, if any ('' when none, or when it does not read). */
function redisPassword(url: string): string {
  try {
    return parseRedisUrl(url).password ?? '';
  } catch (error) {
    if (error instanceof RedisUrlError) return '';
    throw error;
  }
}
