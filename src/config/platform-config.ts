import { z } from 'zod';
import { httpUrl, withoutTrailingSlashes } from '../payments/provider-hosts';
import { positiveInt, secret } from './env-values';

/** The platform's host, every shop's: global. */
export const platformHostShape = {
  PLATFORM_BASE_URL: httpUrl.describe(
    'The platform API host, e.g. `https://apis.cortecloud.com.br` (staging: `https://apis.ccstg.com.br`).',
  ),
  PLATFORM_TIMEOUT_MS: positiveInt
    .prefault('10000')
    .describe('Hard deadline of one request to the platform, in milliseconds.'),
  PLATFORM_PAGE_SIZE: positiveInt
    .max(1000)
    .prefault('50')
    .describe(
      "Services per page when listing, 1 to 1000 (the platform's maximum is not documented).",
    ),
};

/** One shop's platform account: the env shop's, when PLATFORM_EMAIL is set. */
export const platformAccountShape = {
  PLATFORM_EMAIL: z
    .string()
    .min(1)
    .describe(
      "Basic auth user of the platform API (from the platform's support). For the server it is the env shop's: set, it defines the shop `default` from the variables below; unset, the connector serves the registry's shops only (docs/shops.md \"Many shops\").",
    ),
  PLATFORM_PASSWORD: secret(z.string().min(1).describe('Basic auth password of the platform API.')),
  PLATFORM_API_KEY: secret(z.string().min(1).describe('`x-dreamfactory-api-key` header value.')),
};

export const platformShape = { ...platformHostShape, ...platformAccountShape };

export interface PlatformHostConfig {
  baseUrl: string;
  timeoutMs: number;
  pageSize: number;
}

export interface PlatformAccount {
  email: string;
  password: string;
  apiKey: string;
}

export type PlatformConfig = PlatformHostConfig & PlatformAccount;

export function platformHostConfig(
  env: z.infer<z.ZodObject<typeof platformHostShape>>,
): PlatformHostConfig {
  return {
    baseUrl: withoutTrailingSlashes(env.PLATFORM_BASE_URL),
    timeoutMs: env.PLATFORM_TIMEOUT_MS,
    pageSize: env.PLATFORM_PAGE_SIZE,
  };
}

export function platformAccountOf(
  env: z.infer<z.ZodObject<typeof platformAccountShape>>,
): PlatformAccount {
  return {
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
