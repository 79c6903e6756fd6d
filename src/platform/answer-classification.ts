/**
 * The one classification of an upstream answer that every retry in the connector uses
 * (the platform client's brief GET retries now, the finish/cancel delivery later).
 *
 * - success: 2xx.
 * - transient: 408, 425, 429, 5xx, timeouts, resets, refused connections. Retry.
 * - misconfigured: 401, 403, 404 on a path that must exist, and 3xx. Retrying may help once a
 *   person fixes credentials or URLs, so callers that retry for days keep retrying, but it is
 *   logged as an error at once.
 * - permanent: every other 4xx (400, 409, 422...). No retry can help.
 */
export type AnswerClass = 'success' | 'transient' | 'misconfigured' | 'permanent';

const TRANSIENT_STATUSES = new Set([408, 425, 429]);
const MISCONFIGURED_STATUSES = new Set([401, 403, 404]);

/** Classifies an HTTP status code. */
export function classifyStatus(status: number): AnswerClass {
  if (status >= 200 && status < 300) return 'success';
  if (status >= 500 || TRANSIENT_STATUSES.has(status)) return 'transient';
  if (status >= 300 && status < 400) return 'misconfigured';
  if (MISCONFIGURED_STATUSES.has(status)) return 'misconfigured';
  return 'permanent';
}

/**
 * Network failures are transient whatever their code: the request may or may not have
 * arrived, and the receiver dedupes by Idempotency-Key.
 */
export function describeNetworkFailure(code: string | undefined): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ETIMEDOUT':
    case 'ECONNABORTED':
    case 'ERR_CANCELED':
    case 'TIMEOUT':
      return 'timed out';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not resolved';
    default:
      return code ? `network error ${code}` : 'network error';
  }
}

/**
 * Reads Retry-After (seconds, or an HTTP date) as milliseconds from `nowMs`.
 * Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfterMs(header: unknown, nowMs = Date.now()): number | undefined {
  if (typeof header !== 'string' || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
