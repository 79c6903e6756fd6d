import { isSecret } from './env-values';
import { serverShape } from './server-schema';

/**
 * Variables whose values are secrets: never logged, never echoed in an error, and kept in the
 * Kubernetes Secret rather than the ConfigMap (.ci/manifests-check.mjs reads this list). Derived
 * from the schema's `secret()` flags; a provider's come from its descriptor's `secrets`.
 */
export const SECRET_VARIABLES: string[] = Object.entries(serverShape)
  .filter(([, schema]) => isSecret(schema))
  .map(([name]) => name);

/**
 * The values of the secret variables `env` sets, as parsed: what the logger removes from every
 * line, besides the forms a secret takes on the wire (server-config.ts adds those).
 */
export function secretValues(env: Record<string, unknown>): string[] {
  return SECRET_VARIABLES.map((name) => env[name]).filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
}
