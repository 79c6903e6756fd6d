import { z } from 'zod';
import { commonShape, logConfig, type LogConfig } from './common-config';
import { deepFreeze, parseOrThrow, readEnvironment, type Env } from './env-values';
import { platformHostConfig, platformHostShape, type PlatformHostConfig } from './platform-config';
import { redisConfig, redisShape, type RedisConfig } from './redis-config';
import { keyringSecrets, registryShape } from './registry-config';
import type { Config } from './server-config';
import { serverShape } from './server-schema';

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
    secrets: keyringSecrets(raw.SHOP_SECRET_KEYS),
  });
}
