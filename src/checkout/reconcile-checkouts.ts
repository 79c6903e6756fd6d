import type { CheckoutDeps } from './checkout-deps';
import { isOpen, isOutcome, notificationFor } from './checkout-record';
import { expireCheckout } from './expire-checkout';
import { syncFromProvider } from './settle-checkout';

export interface ReconcileReport {
  looked: number;
  synced: number;
  expired: number;
  reproduced: number;
  renotified: number;
  retired: number;
  /** Looks that failed (the provider or the platform away); tried again on a later pass. */
  errors: number;
  /** Checkouts still due when the pass ran out of time: the next pass starts with them. */
  backlog: number;
}

export interface ReconcileOptions {
  /** A checkout untouched and unlooked-at for this long is looked at again. */
  staleMs: number;
  /** How long one pass may keep working; the rest waits for the next pass. */
  budgetMs: number;
  /** Ids read from the line at a time. */
  batchSize?: number;
  /** Checkouts looked at together. */
  concurrency?: number;
}

/**
 * Heals what a lost webhook, a lost job or a lost Redis write left behind. Checkouts wait in
 * one line ordered by when they last changed or were looked at; a pass walks the line from
 * the longest-waiting one, looks at each once and sends it to the back, until nothing
 * untouched for `staleMs` is left or the time budget is spent. So every checkout is reached
 * within a bounded time whatever their number, and the backlog is counted. Checkouts whose
 * delivery failed for good are not in the line: the failed set and the dashboard own them.
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
    backlog: 0,
  };
  const started = deps.clock().getTime();
  const before = new Date(started - options.staleMs);
  const batchSize = options.batchSize ?? 200;
  while (deps.clock().getTime() - started < options.budgetMs) {
    const ids = await deps.store.dueCheckouts(before, batchSize);
    if (ids.length === 0) break;
    await forEachLimited(ids, options.concurrency ?? 16, async (checkoutId) => {
      try {
        await lookAt(deps, checkoutId, report);
      } catch (error) {
        report.errors += 1;
        deps.log.warn('reconciler could not look at a checkout', {
          checkoutId,
          errMessage: error instanceof Error ? error.message : String(error),
        });
      }
    });
    // Looked at, whatever came of it: to the back of the line, so the pass moves on.
    await deps.store.markLooked(ids, deps.clock());
  }
  report.backlog = (await deps.store.reconcileBacklog(before)).due;
  if (report.looked > 0 || report.backlog > 0) deps.log.info('reconciler pass', { ...report });
  return report;
}

async function lookAt(
  deps: CheckoutDeps,
  checkoutId: string,
  report: ReconcileReport,
): Promise<void> {
  const record = await deps.store.get(checkoutId);
  if (!record) {
    await deps.store.retire(checkoutId);
    report.retired += 1;
    return;
  }
  report.looked += 1;
  const now = deps.clock().getTime();
  if (isOpen(record.state)) {
    if (now >= Date.parse(record.expiresAt)) {
      if ((await expireCheckout(deps, checkoutId)) !== 'closed') report.expired += 1;
    } else if (!record.providerRef) {
      await deps.jobs.produce(checkoutId, checkoutId);
      report.reproduced += 1;
    } else {
      await syncFromProvider(deps, record);
      report.synced += 1;
    }
  } else if (isOutcome(record.state)) {
    // The job ids make this a no-op while the notification's job still exists.
    await deps.jobs.notify({
      checkoutId,
      serviceId: record.serviceId,
      kind: notificationFor(record.state),
      outcome: record.state,
      transactionId: record.transactionId,
      reason: record.reason,
    });
    report.renotified += 1;
  } else {
    // Reported: the same write takes it out of line, so only data of an older version gets here.
    await deps.store.retire(checkoutId);
    report.retired += 1;
  }
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
