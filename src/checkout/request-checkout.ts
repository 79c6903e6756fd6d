import { inCheckoutTrace, type CheckoutDeps } from './checkout-deps';
import type { CheckoutRecord } from './checkout-record';
import type { OpenResult } from './ports';
import { notifyRecordedOutcome } from './settle-checkout';

export type RequestCheckoutResult =
  | { kind: 'accepted'; checkoutId: string; repeat: boolean }
  | { kind: 'already_paid'; checkout: CheckoutRecord };

/**
 * The platform asks for a checkout for a service. One open checkout per service: a repeat
 * while it is open re-sends the same URL (never a second payment); a request after it ended
 * starts a new one; a service already paid gets no new checkout.
 */
export async function requestCheckout(
  deps: CheckoutDeps,
  serviceId: number,
): Promise<RequestCheckoutResult> {
  const now = deps.clock();
  const result = await deps.store.openForService({
    checkoutId: deps.newCheckoutId(),
    serviceId,
    provider: deps.provider.name,
    now,
    expiresAt: new Date(now.getTime() + deps.expiryMs),
    lookAt: deps.schedule.firstLookAt(now),
    trace: deps.tracing?.current(),
  });
  // A new checkout's work is in the request's trace already (it is the checkout's); a repeat's,
  // or a paid one's, joins the checkout's own.
  if (result.kind === 'created') return queueWork(deps, result, now);
  return inCheckoutTrace(deps, result.record, 'checkout request', () =>
    queueWork(deps, result, now),
  );
}

/**
 * A service already paid gets no new checkout. The platform asking means it has not heard of the
 * payment: the finish, if it still waits to be sent, is queued again (its first queueing may have
 * failed).
 */
async function refusePaid(
  deps: CheckoutDeps,
  record: CheckoutRecord,
): Promise<RequestCheckoutResult> {
  const { serviceId, checkoutId } = record;
  deps.log.warn('checkout refused: service already paid', { serviceId, checkoutId });
  await notifyRecordedOutcome(deps, record, record.state);
  return { kind: 'already_paid', checkout: record };
}

/** The work a request for a checkout queues: its URL made (or sent again), or its finish. */
async function queueWork(
  deps: CheckoutDeps,
  result: OpenResult,
  now: Date,
): Promise<RequestCheckoutResult> {
  const { record } = result;
  if (result.kind === 'already_paid') return refusePaid(deps, record);
  const { serviceId, checkoutId } = record;
  // While the URL is still being made or sent, the same job id dedupes the request (the URL on
  // its way answers it too); once it was sent, each repeat is a job of its own that posts the
  // same URL again.
  const jobKey =
    result.kind === 'open' && record.state !== 'requested'
      ? `${checkoutId}:resend:${result.requestNumber}`
      : checkoutId;
  // The expiry job is not on the way to the URL: the reconciler's first look at the checkout
  // schedules it, well before the expiry, unless the checkout expires before that look.
  const expiresAt = new Date(record.expiresAt);
  const expiresFirst = expiresAt.getTime() <= deps.schedule.lookedAtBy(now).getTime();
  await Promise.all([
    deps.jobs.produce(checkoutId, jobKey),
    ...(expiresFirst ? [deps.jobs.scheduleExpiry(checkoutId, expiresAt)] : []),
  ]);
  // The 202 promises the URL will come: it waits until a replica holds the checkout and its job,
  // or a failover could take back what was accepted (the platform retries a 503).
  await deps.replication.held('shop-data', 'checkout-queue');
  deps.log.info(result.kind === 'created' ? 'checkout requested' : 'checkout requested again', {
    serviceId,
    checkoutId,
    state: record.state,
  });
  return { kind: 'accepted', checkoutId, repeat: result.kind === 'open' };
}
