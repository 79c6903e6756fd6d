/*
 * Every retry schedule of the connector's jobs, in one place. Retries live in the queues only
 * (docs/architecture.md, rule 4): the platform client under a job makes one attempt.
 */
import { AppError } from '../errors';

/**
 * The delay before retry `attempt` (1: the first) of a notification: exponential from `baseMs`,
 * capped at `capMs`, +-20% jitter. The defaults (5 s, 6 h, 40 attempts) run about a week.
 */
export function notificationRetryDelayMs(
  attempt: number,
  baseMs: number,
  capMs = 6 * 3_600_000,
  random: () => number = Math.random,
): number {
  const exponential = baseMs * 2 ** Math.max(0, attempt - 1);
  const capped = Math.min(exponential, capMs);
  return Math.round(capped * (0.8 + random() * 0.4));
}

export const RETRY_AFTER_CAP_MS = 3_600_000;

/**
 * The delay before the next attempt: the schedule, or the platform's Retry-After when that is
 * longer (capped at an hour, so a wild value cannot park a payment fact for days).
 */
export function notificationBackoffMs(
  attemptsMade: number,
  baseMs: number,
  retryAfterMs?: number,
): number {
  const scheduled = notificationRetryDelayMs(attemptsMade, baseMs);
  return retryAfterMs === undefined
    ? scheduled
    : Math.max(scheduled, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

/** The fast schedule of producing a checkout while the customer waits: 1, 2, 4, 8 s. */
export const PRODUCE_ATTEMPTS = 5;
export const PRODUCE_BACKOFF_MS = 1000;

/**
 * The expiry check: 20 attempts from 5 s, doubling (capped by BullMQ's exponential at hours);
 * the reconciler expires the checkout if every attempt fails.
 */
export const EXPIRE_ATTEMPTS = 20;
export const EXPIRE_BACKOFF_MS = 5000;

/** The reconciler runs on a schedule of its own; a failed pass is simply the next one. */
export const RECONCILE_ATTEMPTS = 1;

/** A sync pass is retried a little (a platform blip), then left to the next scheduled one. */
export const SYNC_PASS_ATTEMPTS = 3;

/**
 * The BullMQ settings of a queue retried on the notifications' schedule (finish/cancel, the ERP
 * sync): the schedule, stretched to a Retry-After the other side asked for.
 */
export function notificationRetrySettings(backoffMs: number): {
  backoffStrategy: (attemptsMade: number, type?: string, error?: Error) => number;
} {
  return {
    backoffStrategy: (attemptsMade, _type, error) =>
      notificationBackoffMs(
        attemptsMade,
        backoffMs,
        error instanceof AppError ? error.retryAfterMs : undefined,
      ),
  };
}

/**
 * How often a worker looks for jobs of crashed workers: twice per lock period (at most every
 * 30 s), so they are recovered soon after their lock lapses.
 */
export function stalledIntervalFor(lockDurationMs: number): number {
  return Math.min(30_000, Math.round(lockDurationMs / 2));
}
