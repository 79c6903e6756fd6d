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
}

/**
 * Heals what a lost webhook, a lost job or a lost Redis write left behind. For every checkout
 * not yet reported and untouched for `staleMs`: an open one is re-read from the provider (and
 * expired when past due), one that never got its URL is produced again, and an outcome that
 * never reached the platform is notified again (job ids and the delivered-record make each of
 * these a no-op when nothing was lost).
 */
export async function reconcileCheckouts(
  deps: CheckoutDeps,
  options: { staleMs: number; limit: number },
): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    looked: 0,
    synced: 0,
    expired: 0,
    reproduced: 0,
    renotified: 0,
    retired: 0,
  };
  const now = deps.clock().getTime();
  for (const checkoutId of await deps.store.activeCheckouts(options.limit)) {
    const record = await deps.store.get(checkoutId);
    if (!record) {
      await deps.store.retire(checkoutId);
      report.retired += 1;
      continue;
    }
    if (now - Date.parse(record.updatedAt) < options.staleMs) continue;
    report.looked += 1;
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
      if (await deps.store.deliveryOf(checkoutId)) {
        // Delivered, but the move to `reported` was lost.
        await deps.store.transition(checkoutId, 'reported', {}, deps.clock());
        report.retired += 1;
        continue;
      }
      await deps.jobs.notify({
        checkoutId,
        serviceId: record.serviceId,
        kind: notificationFor(record.state),
        outcome: record.state,
        transactionId: record.transactionId,
        reason: record.reason,
      });
      report.renotified += 1;
    }
  }
  if (report.looked > 0) deps.log.info('reconciler pass', { ...report });
  return report;
}
