import type { CheckoutDeps } from './checkout-deps';
import { isOpen, type CheckoutRecord, type StoredPlan } from './checkout-record';
import {
  advancePlan,
  giveBackWhatIsOwed,
  isPlanned,
  partCheckoutsOf,
  planDone,
  planStatus,
} from './plan-checkout';
import { notifyRecordedOutcome, recordOutcome, syncFromProvider } from './settle-checkout';

/** How long to look again at a payment still processing at its expiry (Pix, boleto). */
export const PROCESSING_RECHECK_MS = 60 * 60_000;
/** How early an expiry job may run and still close (clocks differ between processes). */
const EARLY_EXPIRY_MS = 60_000;
/** How long a plan's expiry keeps asking a provider away to give its parts back. */
const GIVE_BACK_FOR_MS = 24 * 60 * 60_000;

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
    await notifyRecordedOutcome(deps, record, record.state);
    return 'closed';
  }
  if (isPlanned(record)) return expirePlan(deps, record);
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

/**
 * A planned checkout due to expire before its plan was done: a part paid at the last minute
 * wins; one still processing is looked at again later; otherwise its open part checkouts are
 * closed, the checkout ends as expired (the platform's one cancel), and what its parts were paid
 * is given back (plan-checkout.ts `advancePlan`: a refund, or an incident where none can be made).
 */
async function expirePlan(
  deps: CheckoutDeps,
  record: CheckoutRecord & { plan: StoredPlan },
): Promise<'expired' | 'settled' | 'recheck'> {
  const { checkoutId, plan } = record;
  // An expiry job of the hour before the plan was priced (a plan finishing on the whole is open
  // until its balance is due): looked at again then, not closed now.
  const expiresAt = Date.parse(record.expiresAt);
  if (deps.clock().getTime() < expiresAt - EARLY_EXPIRY_MS) {
    await deps.jobs.scheduleExpiry(checkoutId, new Date(expiresAt));
    return 'recheck';
  }
  const settledBy = async (): Promise<CheckoutRecord | undefined> => {
    const now = await deps.store.get(checkoutId);
    return now && isOpen(now.state) ? now : undefined;
  };
  // What each open part's provider says first: a payment made at the last minute counts.
  for (const part of await partCheckoutsOf(deps, record)) {
    if (isOpen(part.state) && part.providerRef) await syncFromProvider(deps, part);
  }
  const current = await settledBy();
  if (!current) return 'settled';
  const parts = await partCheckoutsOf(deps, current);
  // Done already (a part's outcome recorded by a try that stopped before moving its plan on):
  // finished, never cancelled.
  if (planDone(plan, planStatus(plan, parts))) {
    await advancePlan(deps, checkoutId);
    return 'settled';
  }
  if (parts.some((part) => part.state === 'processing')) {
    await deps.jobs.scheduleExpiry(
      checkoutId,
      new Date(deps.clock().getTime() + PROCESSING_RECHECK_MS),
    );
    return 'recheck';
  }
  for (const part of parts.filter((one) => isOpen(one.state))) {
    if (part.providerRef) {
      const ref = { providerRef: part.providerRef, checkoutId: part.checkoutId };
      await deps.provider.cancelCheckout?.(ref);
      // Paid between the read above and the cancel: it counts.
      const synced = await syncFromProvider(deps, part);
      if (!isOpen(synced.state)) continue;
    }
    await recordOutcome(deps, part, 'expired', { reason: 'checkout expired' });
  }
  const last = await settledBy();
  if (!last) return 'settled';
  const status = planStatus(plan, await partCheckoutsOf(deps, last));
  if (planDone(plan, status)) {
    await advancePlan(deps, checkoutId);
    return 'settled';
  }
  // From here it ends as expired: no part opens, and a part paid now is given back too.
  await deps.store.markClosing(checkoutId, deps.clock());
  // What was paid goes back before the cancel is recorded: a failure that may pass fails this
  // expiry, tried again while the checkout is open, each part given back once; a day on, what
  // still cannot be given back is owed (refund_owed) and the cancel goes.
  const lastTry = deps.clock().getTime() > expiresAt + GIVE_BACK_FOR_MS;
  const closing = planStatus(plan, await partCheckoutsOf(deps, last));
  await giveBackWhatIsOwed(deps, { ...last, outcome: 'expired' }, closing, lastTry);
  await recordOutcome(deps, last, 'expired', { reason: 'checkout expired' });
  return 'expired';
}
