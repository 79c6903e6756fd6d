import { SecretBook } from './secret-book';
import { SecretScanner } from './secret-scanner';

export { SecretBook };

const SECRET_KEY = /authorization|cookie|token|password|passwd|secret|api[-_]?key|signature/i;
export const REDACTED = '[redacted]';

/**
 * A copy of a log record with secrets removed: values under secret-sounding keys, and every
 * stretch covered by known secret values inside any string (SecretScanner: a line costs the same
 * with 1 or 10,000 shops' secrets known).
 */
export function createRedactor(
  secretValues: readonly string[] | SecretBook,
): (value: unknown) => unknown {
  const book = secretValues instanceof SecretBook ? secretValues : new SecretBook(secretValues);
  const scanner = new SecretScanner(book);
  const scrubString = (text: string): string => scanner.replace(text, REDACTED);

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
