import { AppError } from '../errors';
import type { CheckoutRequest } from '../payments/payment-provider';
import type { PlanDocument } from '../payments/payment-plan';
import { feeOn, isNoFee } from '../payments/vendor-fee';
import type { Charge } from './amount-source';
import type { CheckoutDeps } from './checkout-deps';
import { isOpen, type CheckoutRecord } from './checkout-record';
import { dueAtOf, planOfOrder } from './plan-checkout';
import { notifyRecordedOutcome, recordOutcome } from './settle-checkout';

export type ProduceResult =
  'url_sent' | 'closed' | 'unknown_service' | 'nothing_to_charge' | 'missing';

/**
 * Makes the checkout URL and hands it to the platform: reads the service, prices it, creates
 * the provider checkout (once: a re-run finds it stored) and posts the URL. A repeat request
 * posts the same URL again. Platform and provider failures are thrown for the queue to retry.
 */
export async function produceCheckout(
  deps: CheckoutDeps,
  checkoutId: string,
  jobKey: string,
): Promise<ProduceResult> {
  const record = await deps.store.get(checkoutId);
  // A part of a plan is made on its page, and its URL goes to no one but the customer.
  if (!record || record.parent) return 'missing';
  if (!isOpen(record.state)) {
    // Perhaps closed by this job's earlier try, which failed before it queued the cancel.
    await notifyRecordedOutcome(deps, record, record.state);
    return 'closed';
  }
  let current: CheckoutRecord = record;
  if (!current.url) {
    const made = await makeProviderCheckout(deps, record);
    if (typeof made === 'string') return made;
    current = made;
  }
  if (!current.url) {
    // Never hand the platform an empty link: the next attempt reads the record again.
    throw new AppError('INTERNAL', `Checkout ${checkoutId} has no URL to send.`, {
      retryable: true,
    });
  }
  // The platform gets the URL only once a replica holds the checkout it leads to.
  await deps.replication.held('shop-data');
  await deps.platform.postCheckoutUrl({
    serviceId: current.serviceId,
    checkoutUrl: current.url,
    idempotencyKey: `checkout-url:${jobKey}`,
  });
  const now = deps.clock();
  await deps.store.transition(checkoutId, 'url_sent', {}, now, deps.schedule.firstLookAt(now));
  deps.log.info('checkout url sent to the platform', { checkoutId, serviceId: current.serviceId });
  return 'url_sent';
}

/** What the provider is asked to collect for a checkout priced at `charge` (`vendorFee` on it). */
function checkoutRequest(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  charge: Charge,
): CheckoutRequest {
  const { checkoutId, serviceId } = record;
  const returnUrl = `${deps.publicUrl}/return/${deps.provider.name}?checkout_id=${encodeURIComponent(checkoutId)}`;
  const fee =
    deps.vendorFee && !isNoFee(deps.vendorFee) ? feeOn(charge.amount, deps.vendorFee) : undefined;
  return {
    ...(fee ? { vendorFee: fee } : {}),
    checkoutId,
    serviceId,
    amount: charge.amount,
    lines: charge.lines,
    description: `Pedido ${serviceId}`,
    returnUrl,
    cancelUrl: `${returnUrl}&cancelled=1`,
    createdAt: new Date(record.createdAt),
    expiresAt: new Date(record.expiresAt),
  };
}

/**
 * Reads the service, prices it and creates the provider checkout, stored on the record; or how
 * the checkout ended instead (an unknown service, nothing to charge), recorded.
 */
async function makeProviderCheckout(
  deps: CheckoutDeps,
  record: CheckoutRecord,
): Promise<CheckoutRecord | 'unknown_service' | 'nothing_to_charge'> {
  const { checkoutId, serviceId } = record;
  const lookup = await deps.platform.getService(serviceId);
  if (!lookup.found) {
    // [ours] No cancel: the platform says the service does not exist, so a cancel for it
    // could only be refused. The checkout ends as failed and an error is logged.
    deps.log.error('checkout for an unknown service', { checkoutId, serviceId });
    await recordOutcome(deps, record, 'failed', { reason: 'service not found' }, { notify: false });
    return 'unknown_service';
  }
  const charge = await deps.amountSource(lookup.service, deps.currency);
  if (charge.amount.amountMinor <= 0) {
    deps.log.error('checkout with nothing to charge', { checkoutId, serviceId });
    await recordOutcome(deps, record, 'failed', { reason: 'nothing to charge' });
    return 'nothing_to_charge';
  }
  if (deps.plan) return attachPlanPage(deps, record, charge, deps.plan);
  const request = checkoutRequest(deps, record, charge);
  const created = await deps.provider.createCheckout(request);
  const fee = request.vendorFee ? { vendorFee: request.vendorFee } : {};
  const now = deps.clock();
  return deps.store.attachProviderCheckout(
    checkoutId,
    { provider: record.provider, ...created, ...charge, ...fee },
    now,
    deps.schedule.firstLookAt(now),
  );
}

/**
 * A shop with a plan: the order's plan, fixed now, and the connector's page as the checkout's URL
 * (plan-checkout.ts); each payment on it is a part checkout of its own.
 */
function attachPlanPage(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  charge: Charge,
  plan: PlanDocument,
): Promise<CheckoutRecord> {
  const fee =
    deps.vendorFee && !isNoFee(deps.vendorFee) ? feeOn(charge.amount, deps.vendorFee) : undefined;
  const now = deps.clock();
  const planned = planOfOrder(charge, plan, fee, new Date(record.createdAt));
  // Finishing on the whole, the plan is open until its balance is due, not the deposit's expiry.
  const balanceDue = planned.finishOn === 'full' ? planned.parts.at(-1)?.dueDate : undefined;
  const dueAt = balanceDue ? dueAtOf(balanceDue) : undefined;
  const later = dueAt && dueAt.getTime() > Date.parse(record.expiresAt) ? dueAt : undefined;
  return deps.store.attachPlan(
    record.checkoutId,
    {
      url: `${deps.publicUrl}/pay/${encodeURIComponent(record.checkoutId)}`,
      ...charge,
      plan: planned,
      ...(fee ? { vendorFee: fee } : {}),
      ...(later ? { expiresAt: later } : {}),
    },
    now,
    deps.schedule.firstLookAt(now),
  );
}

/** A short, secret-free reason for a cancel, from whatever stopped the checkout. */
function abandonReason(error: unknown): string {
  return `checkout could not be produced (${error instanceof AppError ? error.code : 'INTERNAL'})`;
}

/**
 * The queue gave up on producing a checkout, stopped by `error`. If the URL never reached the
 * platform the checkout fails (`abandonReason`) and the platform gets its cancel; a failed
 * re-send leaves the checkout open, since the customer may still pay with the URL sent before.
 */
export async function abandonCheckout(
  deps: CheckoutDeps,
  checkoutId: string,
  error: unknown,
): Promise<void> {
  const record = await deps.store.get(checkoutId);
  if (!record || record.state !== 'requested') return;
  if (record.providerRef) {
    await deps.provider.cancelCheckout?.({ providerRef: record.providerRef, checkoutId });
  }
  await recordOutcome(deps, record, 'failed', { reason: abandonReason(error) });
}
