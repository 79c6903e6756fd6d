import { z } from 'zod';
import { parseRedisUrl, redactedRedisUrl, RedisUrlError } from '../redis/redis-url';
import { queueConfig, shopsConfig } from './command-configs';
import { commonShape, logConfig, type LogConfig } from './common-config';
import { envShopApiIssues, envShopConfig, envShopIssues, envShopShape } from './env-shop-config';
import { readLeniently, type Env } from './env-values';
import {
  platformAccountOf,
  platformAccountShape,
  platformHostConfig,
  platformHostShape,
} from './platform-config';
import { secretsIn } from './secret-variables';
import { configSchema } from './server-config';
import { pick } from './server-schema';

const envShopSchema = z
  .object({ ...envShopShape, ...pick('PROVIDER_API_ORIGINS', 'CHECKOUT_EXPIRY_MINUTES') })
  .superRefine((raw, ctx) => {
    envShopIssues(raw, raw.CHECKOUT_EXPIRY_MINUTES, ctx);
    envShopApiIssues(raw, ctx);
  })
  .transform(envShopConfig);

/**
 * What `connector doctor` checks, leniently: doctor runs when the configuration is wrong. A part
 * with a problem is undefined (`envShop`: `invalid`/`none`), so only the checks needing it skip.
 */
export function readDoctorConfig(env: Env = process.env, cwd?: string) {
  const { raw, read, problems } = readLeniently(env, cwd);
  // The server's reading stops before its refinements when a variable does not parse.
  read(configSchema);
  // What the checks do without: read without saying a problem (the server's reading says it).
  const quietly = <T>(schema: z.ZodType<T>): T | undefined => schema.safeParse(raw).data;
  const url = raw.REDIS_URL ?? '';
  const config = {
    env: quietly(z.object(pick('NODE_ENV')))?.NODE_ENV ?? 'development',
    redis: read(queueConfig)?.redis,
    redisShown: redactedRedisUrl(url),
    log: quietly(z.object(commonShape).transform(logConfig)) ?? LOG_FALLBACK,
    platform: read(z.object(platformHostShape).transform(platformHostConfig)),
    platformAccount: quietly(z.object(platformAccountShape).transform(platformAccountOf)),
    envShop: read(envShopSchema) ?? (raw.PLATFORM_EMAIL ? 'invalid' : 'none'),
    shops: read(shopsConfig({ keys: false, platform: false })),
    kept: quietly(z.object(pick('CHECKOUT_RETENTION_DAYS', 'PIX_WATCH_DAYS'))),
    secrets: [...secretsIn(raw), redisPassword(url)].filter((value) => value !== ''),
  } as const;
  return { ...config, problems: problems() };
}

export type DoctorConfig = ReturnType<typeof readDoctorConfig>;

const LOG_FALLBACK: LogConfig = { level: 'info', format: 'json' };

function redisPassword(url: string): string {
  try {
    return parseRedisUrl(url).password ?? '';
  } catch (error) {
    if (error instanceof RedisUrlError) return '';
    throw error;
  }
}
