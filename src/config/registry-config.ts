import { z } from 'zod';
import { parseKeyring } from '../secrets/secret-box';
import { positiveInt, secret } from './env-values';

/** The registry's variables: the keyring of the shops' secrets, the admin API's token. */
export const registryShape = {
  SHOP_SECRET_KEYS: secret(
    z
      .string()
      .superRefine((text, ctx) => {
        const keyring = parseKeyring(text);
        if ('problems' in keyring)
          for (const problem of keyring.problems)
            ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .describe(
        'Keyring of the registry shops\' secrets: comma-separated `keyid:<32 random bytes, base64>` (`openssl rand -base64 32`). The first key encrypts; every key listed decrypts (rotation). Required once the registry holds a shop (docs/shops.md "Many shops").',
      ),
  ),
  ADMIN_TOKEN: secret(
    z
      .string()
      .min(32, 'must be at least 32 characters')
      .optional()
      .describe(
        'Bearer token of the admin API (`/admin/api`), at least 32 characters; the admin API is off (404) while unset. Keep `/admin` off the public internet (docs/shops.md "The admin token, and keeping /admin private").',
      ),
  ),
  SHOP_REFRESH_MS: positiveInt
    .min(100)
    .max(4000, 'must be at most 4000: a change reaches every process within 5 s')
    .prefault('2000')
    .describe(
      'How often each process looks for a change to the registry (ms, 100 to 4000): a change is served everywhere within this.',
    ),
  SHOP_BREAKER_FAILURES: positiveInt
    .max(1000)
    .prefault('5')
    .describe(
      'Each shop\'s circuit breaker: this many platform failures in a row (unreachable, 408/425/429/5xx, 401/403/404) open it; its finish/cancel then wait, without spending attempts, while other shops go on (docs/shops.md "Isolation and fairness").',
    ),
  SHOP_BREAKER_COOLDOWN_MS: positiveInt
    .min(100)
    .max(600_000)
    .prefault('30000')
    .describe(
      "The first wait of an open breaker before one job probes the shop's platform again; doubled by each failed probe, at most 10 minutes (ms, 100 to 600000).",
    ),
};

/** SHOP_SECRET_KEYS as given and the base64 of each of its keys: never logged. */
export function keyringSecrets(text: string | undefined): string[] {
  if (!text) return [];
  return [text, ...text.split(',').map((entry) => entry.slice(entry.indexOf(':') + 1).trim())];
}
