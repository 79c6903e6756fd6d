const SECRET_KEY = /authorization|cookie|token|password|passwd|secret|api[-_]?key|signature/i;
export const REDACTED = '[redacted]';

/**
 * Builds a function that returns a copy of a log record with secrets removed: values under
 * secret-sounding keys, and any occurrence of a known secret value inside any string.
 */
export function createRedactor(secretValues: readonly string[]): (value: unknown) => unknown {
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = [...new Set(secretValues.filter((s) => s.length >= 4))].sort(
    (a, b) => b.length - a.length,
  );
  const scrubString = (text: string): string =>
    secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);

  const walk = (value: unknown, depth: number, seen: WeakSet<object>): unknown => {
    if (typeof value === 'string') return scrubString(value);
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value) || depth > 8) return '[truncated]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, seen));
    if (value instanceof Error) {
      return {
        name: value.name,
        message: scrubString(value.message),
        stack: value.stack && scrubString(value.stack),
      };
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) ? REDACTED : walk(child, depth + 1, seen);
    }
    return out;
  };
  return (value) => walk(value, 0, new WeakSet());
}
