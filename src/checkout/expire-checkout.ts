import type { CheckoutDeps } from './checkout-deps';
import { isOpen } from './checkout-record';
import { notifyRecordedOutcome, recordOutcome, syncFromProvider } from './settle-checkout';

/** How long to look again at a payment still processing at its expiry (Pix, boleto). */
export const PROCESSING_RECHECK_MS = 60 * 60_000;

/**
 * Runs when a checkout is due to expire. A payment made at the last minute wins; one still
 * processing is looked at again later; otherwise the provider checkout is closed and the
 * checkout ends as expired, which the platform learns as a cancel.
 */
export async function expireCheckout(
  deps: CheckoutDeps,
  checkoutId: string,
): Promise<'expired' | 'settled' | 'recheck' | 'closed'> {
  const record = await deps.store.get(checkoutId);
  if (!record) return 'closed';
  if (!isOpen(record.state)) {
    await notifyRecordedOutcome(deps, checkoutId, record.state);
    return 'closed';
  }
  if (!record.providerRef) {
    await recordOutcome(deps, record, 'failed', { reason: 'checkout was never produced' });
    return 'expired';
  }
  const synced = await syncFromProvider(deps, record);
  if (!isOpen(synced.state)) return 'settled';
  if (synced.state === 'processing') {
    await deps.jobs.scheduleExpiry(
      checkoutId,
      new Date(deps.clock().getTime() + PROCESSING_RECHECK_MS),
    );
    return 'recheck';
  }
  await deps.provider.cancelCheckout?.({ providerRef: record.providerRef, checkoutId });
  // The provider may have taken a payment between the read above and the cancel.
  const final = await syncFromProvider(deps, synced);
  if (!isOpen(final.state)) return 'settled';
  await recordOutcome(deps, final, 'expired', { reason: 'checkout expired' });
  return 'expired';
}
