import { errorMessage } from '../errors';
import type { CheckoutDeps } from './checkout-deps';
import { UnreadableRecord, type CheckoutRecord } from './checkout-record';
import { followUpAfterOutcome } from './payment-incidents';
import { forEachLimited } from './for-each-limited';

/*
 * The watch of paid Pix (CONTRACT "Money that stays"): a payer may contest a Pix through the
 * Central Bank's MED up to 80 days after paying, and the money goes back within 11 days more. A
 * checkout paid by Pix joins its shop's watch in the write that records it paid; the reconciler's
 * passes read it again at its provider once a day for 14 days, then once a week, until
 * PIX_WATCH_DAYS after the payment. What the provider says then is an incident like any after the
 * outcome (a `med_return`, a `refund`). A webhook about it is read at once, watch or not.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Reads of one shop's watch under way at once. */
const WATCH_CONCURRENCY = 8;
/** Read daily while the Pix is this young: most contests come in the first days. */
export const WATCH_DAILY_DAYS = 14;
/** PIX_WATCH_DAYS' default: 80 days to contest, 11 to return, and a margin. */
export const PIX_WATCH_DAYS = 92;
/** Reads of one shop's watch in one pass, at most: its watch never crowds out another shop. */
export const WATCH_READS_PER_PASS = 50;

/** When a Pix paid at `paidAt` is first read again. */
export function firstWatchAt(paidAt: Date): Date {
  return new Date(paidAt.getTime() + DAY_MS);
}

/**
 * When to read a Pix paid at `paidAtMs` next, after a read at `nowMs`: a day later while it is
 * younger than 14 days, a week later after, and a last read at the end of the watch; undefined
 * once the watch is over.
 */
export function nextWatchAt(paidAtMs: number, nowMs: number, watchDays: number): Date | undefined {
  const endMs = paidAtMs + watchDays * DAY_MS;
  if (nowMs >= endMs) return undefined;
  const step = nowMs - paidAtMs < WATCH_DAILY_DAYS * DAY_MS ? DAY_MS : 7 * DAY_MS;
  return new Date(Math.min(nowMs + step, endMs));
}

export interface WatchOptions {
  /** PIX_WATCH_DAYS. */
  watchDays: number;
  /** Reads in this pass, at most (WATCH_READS_PER_PASS unless said). */
  limit?: number;
  /** Whether the pass has time left: no read starts once it says no. */
  inTime?: () => boolean;
}

/** When the checkout was recorded paid (its story's time; its last write for older records). */
function paidAtOf(record: CheckoutRecord): number {
  return Date.parse(record.reachedAt?.paid ?? record.updatedAt);
}

/** What became of one watched Pix in a pass: its next read, or out of the watch, or untouched. */
type WatchStep = { next: Date; failed?: true } | { ended: true; failed?: true } | { skipped: true };

/**
 * One watched Pix read at its provider. Leaves the watch: a record gone, unreadable, not paid, or
 * of another provider than the shop's now (it is not this provider's to read). A failed read
 * keeps its schedule; the last one is tried again hourly for a day.
 */
async function watchOne(
  deps: CheckoutDeps,
  checkoutId: string,
  record: CheckoutRecord | UnreadableRecord | undefined,
  pass: { now: Date } & WatchOptions,
): Promise<WatchStep> {
  if (pass.inTime && !pass.inTime()) return { skipped: true };
  if (record instanceof UnreadableRecord)
    deps.log.warn('the Pix watch let go of an unreadable record', { checkoutId });
  if (
    !record ||
    record instanceof UnreadableRecord ||
    record.outcome !== 'paid' ||
    record.provider !== deps.provider.name
  )
    return { ended: true };
  const nowMs = pass.now.getTime();
  const paidAt = paidAtOf(record);
  const at = nextWatchAt(paidAt, nowMs, pass.watchDays);
  try {
    await followUpAfterOutcome(deps, record);
  } catch (error) {
    deps.log.warn('the Pix watch could not read a payment; read again later', {
      checkoutId,
      errMessage: errorMessage(error),
    });
    if (at) return { next: at, failed: true };
    const lastTry = nowMs < paidAt + pass.watchDays * DAY_MS + DAY_MS;
    return lastTry
      ? { next: new Date(nowMs + HOUR_MS), failed: true }
      : { ended: true, failed: true };
  }
  return at ? { next: at } : { ended: true };
}

/**
 * One pass over a shop's watch: the Pix due are read at their provider, a bounded number, none
 * started past the deadline, and each is given its next read or leaves the watch. Returns how
 * many were read, and how many reads failed.
 */
export async function watchPaidPix(
  deps: CheckoutDeps,
  options: WatchOptions,
): Promise<{ watched: number; watchErrors: number }> {
  const now = deps.clock();
  const ids = await deps.line.dueWatches(now, options.limit ?? WATCH_READS_PER_PASS);
  if (ids.length === 0) return { watched: 0, watchErrors: 0 };
  if (options.watchDays <= 0) {
    // PIX_WATCH_DAYS=0: the watch is off, and what a write put in it leaves unread.
    await deps.line.endWatches(ids);
    return { watched: 0, watchErrors: 0 };
  }
  const records = await deps.store.getMany(ids);
  const steps = new Map<string, WatchStep>();
  const batch = ids.map((checkoutId, i) => ({ checkoutId, record: records[i] }));
  await forEachLimited(batch, WATCH_CONCURRENCY, async ({ checkoutId, record }) => {
    steps.set(checkoutId, await watchOne(deps, checkoutId, record, { ...options, now }));
  });
  const done = [...steps].filter(([, step]) => !('skipped' in step));
  const next = done.flatMap(([checkoutId, step]) =>
    'next' in step ? [{ checkoutId, at: step.next }] : [],
  );
  await deps.line.scheduleWatches(next);
  await deps.line.endWatches(done.filter(([, step]) => 'ended' in step).map(([id]) => id));
  const watchErrors = done.filter(([, step]) => 'failed' in step && step.failed).length;
  return { watched: done.length, watchErrors };
}
