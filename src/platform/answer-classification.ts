import { AppError } from '../errors';
import { platformErrorSchema } from './schemas';

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

export interface PlatformAnswer {
  status: number;
  body: unknown;
}

/** An answer of the platform as the client returns it (2xx) or throws it (every other). */
export function answerOf(
  request: { method: string; path: string },
  status: number,
  data: unknown,
  retryAfter: unknown,
): PlatformAnswer {
  const where = `${request.method} ${request.path}`;
  const text = typeof data === 'string' ? data : '';
  const klass = classifyStatus(status);
  // A 2xx to a POST or PUT is an acceptance whatever its body says; only GETs need the body.
  if (klass === 'success') {
    return { status, body: request.method === 'GET' ? parseJson(text, where) : text };
  }
  // What the platform said is logged (`cause`), never repeated in an answer.
  const platformMessage = readPlatformMessage(text);
  throw new AppError(
    klass === 'transient' ? 'PLATFORM_UNAVAILABLE' : 'PLATFORM_REJECTED',
    `The platform answered ${status} to ${where}.`,
    {
      upstreamStatus: status,
      ...(platformMessage ? { cause: platformMessage } : {}),
      retryAfterMs: parseRetryAfterMs(retryAfter),
      // A misconfiguration (401, 403, 404, 3xx) may be fixed by a person while the queues
      // keep retrying; every other refusal is final.
      retryable: klass !== 'permanent',
    },
  );
}

function parseJson(text: string, where: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('PLATFORM_BAD_RESPONSE', `The platform's answer to ${where} is not JSON.`);
  }
}

/** DreamFactory's `error.message`, shortened; undefined when the body is something else. */
function readPlatformMessage(text: string): string | undefined {
  try {
    const parsed = platformErrorSchema.safeParse(JSON.parse(text));
    const message = parsed.success ? parsed.data.error.message : undefined;
    return message ? message.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}
