import { AppError, errorMessage } from '../errors';
import { classifyStatus, type AnswerClass } from '../platform/answer-classification';

/**
 * What to do after one delivery attempt of a finish or cancel. The one answer table of
 * docs/delivery.md, tested row by row:
 *
 * | answer                                   | verdict                                  |
 * | 2xx within the timeout                   | delivered                                |
 * | 408, 425, 429, 5xx, timeout, reset,      | retry on the schedule (Retry-After, when |
 * |   refused, unreachable                   |   given, is honoured up to a cap)        |
 * | 3xx, 401, 403, 404                       | retry, and log an error at once: the     |
 * |                                          |   credentials or URL are wrong           |
 * | 400, 409, 422 and every other 4xx        | give up: the failed set, with the        |
 * |                                          |   platform's message                     |
 */
export type DeliveryVerdict =
  | { action: 'delivered' }
  | {
      action: 'retry';
      /** How the answer classifies; no answer at all counts as transient. */
      answer: Extract<AnswerClass, 'transient' | 'misconfigured'>;
      alert: boolean;
      reason: string;
      retryAfterMs?: number;
    }
  | { action: 'give_up'; reason: string };

/** Judges the outcome of one attempt: `undefined` for success, else what was thrown. */
export function judgeDelivery(error?: unknown): DeliveryVerdict {
  if (error === undefined) return { action: 'delivered' };
  if (error instanceof AppError && !error.retryable) {
    // The error says no retry can help: the same verdict the job layer reaches from it.
    return { action: 'give_up', reason: error.message };
  }
  if (!(error instanceof AppError)) {
    return {
      action: 'retry',
      answer: 'transient',
      alert: true,
      reason: errorMessage(error),
    };
  }
  if (error.upstreamStatus === undefined) {
    // No answer at all (timeout, reset, refused) or an unreadable one: the platform may have
    // the notification or not; the Idempotency-Key makes sending it again safe.
    return { action: 'retry', answer: 'transient', alert: false, reason: error.message };
  }
  switch (classifyStatus(error.upstreamStatus)) {
    case 'success':
      return { action: 'delivered' };
    case 'transient':
      return {
        action: 'retry',
        answer: 'transient',
        alert: false,
        reason: error.message,
        retryAfterMs: error.retryAfterMs,
      };
    case 'misconfigured':
      return { action: 'retry', answer: 'misconfigured', alert: true, reason: error.message };
    case 'permanent':
      // A retryable error with a permanent status does not arise from the platform client.
      return { action: 'retry', answer: 'transient', alert: true, reason: error.message };
  }
}
