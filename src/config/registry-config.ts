import { z } from 'zod';
import { parseKeyring } from '../shops/secret-box';
import { positiveInt } from './env-values';

/** The registry's variables: the keyring of the shops' secrets, the admin API's token. */
export const registryShape = {
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

/** SHOP_SECRET_KEYS as given and the base64 of each of its keys: never logged. */
export function keyringSecrets(text: string | undefined): string[] {
  if (!text) return [];
  return [text, ...text.split(',').map((entry) => entry.slice(entry.indexOf(':') + 1).trim())];
}
