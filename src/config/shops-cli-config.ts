import { z } from 'zod';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { commonShape, logConfig, type LogConfig } from './common-config';
import {
  connectIssues,
  connectShape,
  vendorAccountsFrom,
  vendorProviderShape,
} from './connect-config';
import { deepFreeze, isSecret, parseOrThrow, readEnvironment, type Env } from './env-values';
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
  /** The vendor's accounts: which providers `shops connect` can make links for. */
  vendor: VendorAccounts;
  secrets: string[];
}

/**
 * Only what `connector shops` needs (CONTRACT "Shops"). SHOP_SECRET_KEYS is required by the verbs
 * that seal or open secrets (`needsKeys`), PLATFORM_BASE_URL by those that check a shop's
 * platform credentials (`needsPlatform`: add, update, verify); reading the registry needs
 * neither. Throws ConfigError.
 */
export function loadShopsConfig(
  env: Env = process.env,
  options: { needsKeys: boolean; needsPlatform: boolean; cwd?: string },
): ShopsCliConfig {
  const raw = parseOrThrow(
    z
      .object({
        ...commonShape,
        ...platformHostShape,
        PLATFORM_BASE_URL: platformHostShape.PLATFORM_BASE_URL.optional(),
        PORT: serverShape.PORT,
        PUBLIC_URL: serverShape.PUBLIC_URL,
        ...redisShape,
        SHOP_SECRET_KEYS: registryShape.SHOP_SECRET_KEYS,
        SANDBOX_IN_PRODUCTION: serverShape.SANDBOX_IN_PRODUCTION,
        PROVIDER_API_ORIGINS: serverShape.PROVIDER_API_ORIGINS,
        ...connectShape,
        ...vendorProviderShape,
      })
      .superRefine((raw, ctx) => {
        connectIssues(raw, ctx);
        if (options.needsPlatform && raw.PLATFORM_BASE_URL === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['PLATFORM_BASE_URL'],
            message: "is required: a shop's platform credentials are checked against it",
          });
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
    // Unset for the verbs that never call the platform: nothing reads it then.
    platform: platformHostConfig({ ...raw, PLATFORM_BASE_URL: raw.PLATFORM_BASE_URL ?? '' }),
    publicUrl: (raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
    shops: { secretKeys: raw.SHOP_SECRET_KEYS },
    sandboxAllowed: raw.NODE_ENV !== 'production' || raw.SANDBOX_IN_PRODUCTION === 'true',
    providerApiOrigins: raw.PROVIDER_API_ORIGINS ?? [],
    vendor: vendorAccountsFrom(raw),
    secrets: [
      ...keyringSecrets(raw.SHOP_SECRET_KEYS),
      // The vendor's secrets, as their flows declare them.
      ...Object.entries({ ...connectShape, ...vendorProviderShape })
        .filter(([, schema]) => isSecret(schema))
        .map(([name]) => (raw as Record<string, unknown>)[name])
        .filter((value): value is string => typeof value === 'string' && value !== ''),
    ],
  });
}
