import { errorMessage } from '../errors';
import { inCheckoutTrace, type CheckoutDeps } from './checkout-deps';
import {
  isOpen,
  isOutcome,
  notificationFor,
  UnreadableRecord,
  type CheckoutRecord,
} from './checkout-record';
import { expireCheckout } from './expire-checkout';
import { advancePlan, isPlanned } from './plan-checkout';
import { notifyRecordedOutcome, queuePaidRecord, syncFromProvider } from './settle-checkout';
import { sweepReceived } from './sweep-received';
import { forEachLimited } from './for-each-limited';

export interface ReconcileReport {
  looked: number;
  synced: number;
  expired: number;
  reproduced: number;
  renotified: number;
  retired: number;
  /** Looks that failed (the provider or the platform away); tried again on a later pass. */
  errors: number;
  /** Records that do not read as a checkout: parked into the shop's unreadable set. */
  unreadable: number;
  /** Checkouts still due when the pass ran out of time: the next pass starts with them. */
  backlog: number;
  /** Payments the provider received that the sweep found unknown to it (webhooks lost). */
  swept: number;
}

export interface ReconcileOptions {
  /** How often passes run. A checkout is looked at again at least this long after a look. */
  intervalMs: number;
  /** How long one pass may keep working; the rest waits for the next pass. */
  budgetMs: number;
  /** The longest wait between two looks at a checkout that stays silent. */
  maxWaitMs?: number;
  /** Ids read from the line at a time. */
  batchSize?: number;
  concurrency?: number;
}

/** Default of `maxWaitMs`: a checkout silent for hours is still asked about every 15 minutes. */
export const MAX_LOOK_WAIT_MS = 15 * 60_000;

/**
 * When to look at a checkout again: half its silence, between one interval and `maxWaitMs`
 * (fresh checkouts, where a lost webhook matters most, are asked about often).
 */
export function nextLookDelayMs(silentMs: number, intervalMs: number, maxWaitMs: number): number {
  return Math.round(Math.min(maxWaitMs, Math.max(intervalMs, silentMs / 2)));
}

/**
 * Heals what a lost webhook, job or Redis write left behind. Checkouts wait in one line by when
 * each is next due for a look; a pass looks at the due ones, most overdue first, until none is
 * due or the time budget is spent, and counts what is left as the backlog.
 */
export async function reconcileCheckouts(
  deps: CheckoutDeps,
  options: ReconcileOptions,
): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    looked: 0,
    synced: 0,
    expired: 0,
    reproduced: 0,
    renotified: 0,
    retired: 0,
    errors: 0,
    unreadable: 0,
    backlog: 0,
    swept: 0,
  };
  const started = deps.clock();
  while (deps.clock().getTime() - started.getTime() < options.budgetMs) {
    const ids = await deps.line.dueCheckouts(started, options.batchSize ?? 200);
    if (ids.length === 0) break;
    await reconcileBatch(deps, ids, options, report);
  }
  report.swept = await sweepReceived(deps);
  report.backlog = (await deps.line.reconcileBacklog(started)).due;
  if (report.looked > 0 || report.unreadable > 0 || report.backlog > 0 || report.swept > 0) {
    const durationMs = deps.clock().getTime() - started.getTime();
    deps.log.info('reconciler pass', { ...report, durationMs });
  }
  return report;
}

async function reconcileBatch(
  deps: CheckoutDeps,
  ids: string[],
  options: ReconcileOptions,
  report: ReconcileReport,
): Promise<void> {
  // A batch's records and its expiry jobs take a round trip each, not one per checkout: a
  // failure here (Redis away) fails the pass and leaves the line as it was for the next.
  const records = await deps.store.getMany(ids);
  await scheduleExpiries(deps, records);
  const looks: Array<{ checkoutId: string; at: Date }> = [];
  const batch = ids.map((checkoutId, i) => ({ checkoutId, record: records[i] }));
  await forEachLimited(batch, options.concurrency ?? 32, async ({ checkoutId, record }) => {
    const silentMs = await lookOrPark(deps, checkoutId, record, report);
    if (silentMs === undefined) return;
    const maxWaitMs = options.maxWaitMs ?? MAX_LOOK_WAIT_MS;
    const delayMs = nextLookDelayMs(silentMs, options.intervalMs, maxWaitMs);
    looks.push({ checkoutId, at: new Date(deps.clock().getTime() + delayMs) });
  });
  await deps.line.scheduleLooks(looks);
}

/**
 * `lookAt`, a failure counted and logged; an unreadable record parked, reported once
 * (`checkout status --unreadable`): undefined, no next look.
 */
async function lookOrPark(
  deps: CheckoutDeps,
  checkoutId: string,
  record: CheckoutRecord | UnreadableRecord | undefined,
  report: ReconcileReport,
): Promise<number | undefined> {
  if (record instanceof UnreadableRecord) {
    await deps.line.parkUnreadable(checkoutId, deps.clock());
    report.unreadable += 1;
    deps.log.error('unreadable checkout record', { checkoutId, problem: record.problem });
    return undefined;
  }
  try {
    return await lookAt(deps, checkoutId, record, report);
  } catch (error) {
    report.errors += 1;
    deps.log.warn('reconciler could not look at a checkout', {
      checkoutId,
      errMessage: errorMessage(error),
    });
    return 0;
  }
}

/** The expiry jobs of the open checkouts among `records` (job ids make a repeat a no-op). */
async function scheduleExpiries(
  deps: CheckoutDeps,
  records: ReadonlyArray<CheckoutRecord | UnreadableRecord | undefined>,
): Promise<void> {
  const now = deps.clock().getTime();
  const expiries = records.flatMap((record) =>
    record &&
    !(record instanceof UnreadableRecord) &&
    isOpen(record.state) &&
    now < Date.parse(record.expiresAt)
      ? [{ checkoutId: record.checkoutId, at: new Date(record.expiresAt) }]
      : [],
  );
  await deps.jobs.scheduleExpiries(expiries);
}

/**
 * Looks at one checkout as read at its batch's start; returns how long it has been silent. Each
 * step checks the state it acts on, so a record changed since is not undone.
 */
async function lookAt(
  deps: CheckoutDeps,
  checkoutId: string,
  record: CheckoutRecord | undefined,
  report: ReconcileReport,
): Promise<number> {
  if (!record) {
    await deps.line.retire(checkoutId);
    report.retired += 1;
    return 0;
  }
  report.looked += 1;
  return inCheckoutTrace(deps, record, 'checkout reconcile', () => act(deps, record, report));
}

async function act(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  report: ReconcileReport,
): Promise<number> {
  const { checkoutId } = record;
  const now = deps.clock().getTime();
  const silentMs = Math.max(0, now - Date.parse(record.updatedAt));
  if (isOpen(record.state)) {
    if (now >= Date.parse(record.expiresAt)) {
      if ((await expireCheckout(deps, checkoutId)) !== 'closed') report.expired += 1;
      return silentMs;
    }
    if (record.parent && !record.providerRef) {
      // A part whose provider checkout was not made: the same choice on its page makes it; its
      // expiry ends it.
    } else if (isPlanned(record) && record.state !== 'requested') {
      // Its parts' news, should a step after one's outcome have failed.
      await advancePlan(deps, checkoutId);
      report.synced += 1;
    } else if (!record.providerRef) {
      await deps.jobs.produce(checkoutId, checkoutId);
      report.reproduced += 1;
    } else {
      await syncFromProvider(deps, record);
      report.synced += 1;
    }
  } else if (record.parent && isOutcome(record.state)) {
    // A part's outcome moves its plan on (and takes it out of line), telling the platform nothing.
    await notifyRecordedOutcome(deps, record, record.state);
    report.retired += 1;
  } else if (isOutcome(record.state)) {
    // A planned checkout's parts paid after it ended undone are given back, until it is reported.
    if (isPlanned(record)) await advancePlan(deps, checkoutId);
    // The job ids make this a no-op while the notification's job still exists; a paid one's
    // payment record is queued first, as the outcome's write does (settle-checkout.ts).
    if (record.state === 'paid') await queuePaidRecord(deps, checkoutId);
    await deps.jobs.notify({ checkoutId, kind: notificationFor(record.state) });
    report.renotified += 1;
  } else {
    // Reported: the same write takes it out of line, so only data of an older version gets here.
    await deps.line.retire(checkoutId);
    report.retired += 1;
  }
  return silentMs;
}
