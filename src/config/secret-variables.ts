import { isSecret } from './env-values';
import { platformSecrets } from './platform-config';
import { keyringSecrets } from './registry-config';
import { serverShape } from './server-schema';

/** The `secret()` variables; .ci/manifests-check.mjs reads this list (Secret, not ConfigMap). */
export const SECRET_VARIABLES: string[] = Object.entries(serverShape)
  .filter(([, schema]) => isSecret(schema))
  .map(([name]) => name);

/** What logs and errors must never show: each secret, and its forms inside others (Basic). */
export function secretsIn(env: Record<string, unknown>): string[] {
  const text = (name: string): string => {
    const value = env[name];
    return typeof value === 'string' ? value : '';
  };
  const password = text('PLATFORM_PASSWORD');
  const account = { email: text('PLATFORM_EMAIL'), password, apiKey: text('PLATFORM_API_KEY') };
  const found = [
    ...SECRET_VARIABLES.map(text),
    ...(password ? platformSecrets(account) : []),
    ...keyringSecrets(text('SHOP_SECRET_KEYS')),
    decodeURIComponent(URL.parse(text('ERP_WEBHOOK_URL'))?.password ?? ''),
  ];
  return [...new Set(found.filter((value) => value !== ''))];
}
