import { errorMessage } from '../errors';
import type { Money } from '../payments/money';
import {
  withCheckoutClosed,
  type CheckoutClosed,
  type PaymentStatus,
} from '../payments/payment-provider';
import { inCheckoutTrace, type CheckoutDeps } from './checkout-deps';
import {
  isOpen,
  isOutcome,
  notificationFor,
  type CheckoutOutcome,
  type CheckoutRecord,
  type CheckoutState,
  type PaymentIncident,
} from './checkout-record';
import { followUpAfterOutcome } from './payment-incidents';
import { advancePlan } from './plan-checkout';
import { paidRecord } from './payment-record';
import type { OutcomeFields, WrittenTo } from './ports';

function targetState(status: PaymentStatus): CheckoutOutcome | 'processing' | undefined {
  switch (status.state) {
    case 'paid':
      return 'paid';
    // Refunded before the connector learned it was paid: no money stays with the shop.
    case 'refunded':
    case 'charged_back':
    case 'failed':
    case 'canceled':
      return 'declined';
    case 'expired':
      return 'expired';
    case 'processing':
      return 'processing';
    case 'pending':
      return undefined;
  }
}

/**
 * Whether a paid status pays the checkout (docs/payment-providers.md, "The amount rule"): the
 * order's amount plus exactly the interest the provider reports, in the checkout's currency.
 * Either amount unknown: paid, nothing to compare.
 */
export function amountVerdict(
  expected: Money | undefined,
  status: Pick<PaymentStatus, 'amount' | 'interest'>,
): { paid: true; collectedMinor?: number; interestMinor?: number } | { paid: false; why: string } {
  const collected = status.amount;
  if (!expected || !collected) return { paid: true };
  if (collected.currency !== expected.currency) {
    return { paid: false, why: `collected in ${collected.currency}, not ${expected.currency}` };
  }
  const interest = status.interest;
  if (interest && interest.currency !== expected.currency) {
    return { paid: false, why: `interest in ${interest.currency}, not ${expected.currency}` };
  }
  const interestMinor = interest?.amountMinor ?? 0;
  const principal = collected.amountMinor - interestMinor;
  if (principal < expected.amountMinor) {
    return { paid: false, why: 'short of the order' };
  }
  if (principal > expected.amountMinor) {
    return {
      paid: false,
      why: 'more than the order, and the provider calls no more of it interest',
    };
  }
  return {
    paid: true,
    collectedMinor: collected.amountMinor,
    ...(interestMinor > 0 ? { interestMinor } : {}),
  };
}

function defaultReason(target: CheckoutOutcome): string | undefined {
  if (target === 'paid') return undefined;
  return target === 'expired' ? 'checkout expired' : `payment ${target}`;
}

/**
 * Records an outcome once and enqueues its one notification: the atomic transition makes the
 * first of the paths that learn an outcome the only one that notifies.
 */
export async function recordOutcome(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  outcome: CheckoutOutcome,
  fields: OutcomeFields,
  options: { notify?: boolean } = {},
): Promise<boolean> {
  const { checkoutId } = record;
  const now = deps.clock();
  const lookAt = deps.schedule.firstLookAt(now);
  const { moved, state } = await deps.store.transition(
    checkoutId,
    outcome,
    fields,
    now,
    lookAt,
    record,
  );
  const notify = options.notify !== false;
  if (!moved) {
    deps.log.info('outcome already settled', { checkoutId, outcome, state });
    // The same outcome may be a retry of the try that recorded it: its notification is queued
    // again (where it is to be sent). Another outcome queues nothing.
    await notifyRecordedOutcome(deps, record, state === outcome && notify ? state : undefined);
    return false;
  }
  deps.log.info('checkout outcome recorded', {
    checkoutId,
    serviceId: record.serviceId,
    outcome,
    ...(record.parent ? { parent: record.parent, part: record.part } : {}),
  });
  // The ERP's payment record before the finish: should queueing it fail, the finish is not
  // queued either, and whatever queues the finish again (this event's retry, the reconciler,
  // while the checkout waits in line) queues the record with it. Never a finish acknowledged
  // with its record lost.
  const recorded = outcome === 'paid' ? await queuePaidRecord(deps, checkoutId) : [];
  if (record.parent) {
    // A part of a plan tells the platform nothing: its plan moves on (and reports), and only then
    // is the part out of line: should that fail, the reconciler moves it on.
    await deps.replication.held('shop-data', ...recorded);
    try {
      await advancePlan(deps, record.parent);
    } catch (error) {
      // Left in line: the reconciler moves its plan on (a give-back under way, a provider away).
      deps.log.warn('the plan of a part paid is not moved on yet; the reconciler tries again', {
        checkoutId,
        parent: record.parent,
        errMessage: errorMessage(error),
      });
      return true;
    }
    await deps.line.retire(checkoutId);
    return true;
  }
  if (notify) await deps.jobs.notify({ checkoutId, kind: notificationFor(outcome) });
  else await deps.line.retire(checkoutId);
  // The outcome and its queued finish/cancel are held by a replica before anyone hears of them.
  await deps.replication.held('shop-data', 'notification-queue', ...recorded);
  return true;
}

/**
 * A paid checkout's payment record, queued for the ERP once per checkout (the record notes it;
 * its `record_id` dedupes the job). Returns where it wrote, for `Replication.held`.
 */
export async function queuePaidRecord(
  deps: CheckoutDeps,
  checkoutId: string,
): Promise<WrittenTo[]> {
  if (!deps.paymentRecords) return [];
  const stored = await deps.store.get(checkoutId);
  // Queued once: a hint much later (its job trimmed from the queue) sends no second record. A
  // planned checkout has none of its own: each of its part checkouts has one.
  if (stored?.outcome !== 'paid' || stored.paidRecordQueued || stored.plan) return [];
  await deps.paymentRecords.queue(paidRecord(stored, deps.clock()));
  await deps.store.markPaidRecordQueued(checkoutId);
  return ['sync-queue', 'shop-data'];
}

/**
 * A checkout found with its outcome recorded, by a caller that will tell someone: its finish or
 * cancel is queued again (a no-op while its job exists) if it is still in line, then held by a
 * replica. The try that recorded the outcome may have failed before it queued the notification
 * (a failover between the record's node and the queue's): its retry puts that right at once, not
 * at the reconciler's next pass. `state` undefined queues nothing. A part of a plan queues no
 * notification: its plan is moved on again (`advancePlan`), and it is taken out of line.
 */
export async function notifyRecordedOutcome(
  deps: CheckoutDeps,
  record: Pick<CheckoutRecord, 'checkoutId' | 'parent'>,
  state: CheckoutState | undefined,
): Promise<void> {
  const { checkoutId } = record;
  const recorded: WrittenTo[] = [];
  if (record.parent && state !== undefined && isOutcome(state)) {
    if (state === 'paid') recorded.push(...(await queuePaidRecord(deps, checkoutId)));
    await deps.replication.held('shop-data', ...recorded);
    await advancePlan(deps, record.parent);
    await deps.line.retire(checkoutId);
    return;
  }
  if (state !== undefined && isOutcome(state) && (await deps.line.inLine(checkoutId))) {
    // Its payment record too, first, for the same reason (see `recordOutcome`).
    if (state === 'paid') recorded.push(...(await queuePaidRecord(deps, checkoutId)));
    await deps.jobs.notify({ checkoutId, kind: notificationFor(state) });
  }
  // What settled it may have been written on this connection a moment ago: held first too.
  await deps.replication.held('shop-data', 'notification-queue', ...recorded);
}

/** Never recorded as paid: a person must look (a tampered or mixed-up payment). */
function logPaymentMismatch(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  status: PaymentStatus,
  why: string,
): void {
  deps.log.error('provider reports a payment that does not match the checkout', {
    checkoutId: record.checkoutId,
    serviceId: record.serviceId,
    expected: record.amount,
    reported: status.amount,
    interest: status.interest,
    why,
  });
}

/**
 * A payment under way. Already processing: a later payment by another method (a boleto, then a
 * Pix) is the one that tells; one whose provider says no method leaves the record's.
 */
async function markProcessing(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  method: PaymentStatus['method'],
): Promise<void> {
  const now = deps.clock();
  const lookAt = deps.schedule.firstLookAt(now);
  const { moved } = await deps.store.transition(
    record.checkoutId,
    'processing',
    { method },
    now,
    lookAt,
  );
  if (!moved && method && method !== record.method) {
    await deps.store.updateMethod(record.checkoutId, method, now);
  }
}

function outcomeFields(
  target: CheckoutOutcome,
  status: PaymentStatus,
  verdict: ReturnType<typeof amountVerdict>,
): OutcomeFields {
  return {
    transactionId: status.transactionId,
    reason: status.reason ?? defaultReason(target),
    method: status.method,
    ...(target === 'paid' && verdict.paid
      ? {
          collectedMinor: verdict.collectedMinor,
          interestMinor: verdict.interestMinor,
          settlement: status.settlement,
        }
      : {}),
  };
}

/**
 * Asks the provider for the truth about an open checkout and applies it (a webhook or a redirect
 * is only a hint); a closed one's notification is seen queued. `closed`: a verified event said
 * the provider's checkout is closed. `known`: the status the caller has just read.
 */
export async function syncFromProvider(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  closed?: CheckoutClosed,
  known?: PaymentStatus,
): Promise<CheckoutRecord> {
  if (!isOpen(record.state)) {
    await notifyRecordedOutcome(deps, record, record.state);
    return record;
  }
  if (!record.providerRef) return record;
  const ref = { providerRef: record.providerRef, checkoutId: record.checkoutId };
  const status = withCheckoutClosed(known ?? (await deps.provider.getStatus(ref)), closed);
  const target = targetState(status);
  // Still pending: nothing changed, so nothing to read again.
  if (target === undefined) return record;
  const verdict = amountVerdict(record.amount, status);
  if (target === 'paid' && !verdict.paid) {
    logPaymentMismatch(deps, record, status, verdict.why);
    return record;
  }
  if (target === 'processing') await markProcessing(deps, record, status.method);
  else await recordOutcome(deps, record, target, outcomeFields(target, status, verdict));
  return (await deps.store.get(record.checkoutId)) ?? record;
}

/**
 * The provider has news about a checkout: an open one is settled from the provider's truth; one
 * whose outcome is recorded is followed up, what the provider says after it being an incident.
 */
export function learnFromProvider(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  closed?: CheckoutClosed,
  known?: PaymentStatus,
): Promise<{ record: CheckoutRecord; incident?: PaymentIncident }> {
  // Told in the checkout's trace, linked to the webhook's or the page's request.
  return inCheckoutTrace(deps, record, 'checkout learn', async () => {
    if (isOpen(record.state)) {
      return { record: await syncFromProvider(deps, record, closed, known) };
    }
    await notifyRecordedOutcome(deps, record, record.state);
    const incident = await followUpAfterOutcome(deps, record, known);
    return incident ? { record, incident } : { record };
  });
}

/** A provider's own page (the sandbox's buttons) learned something: as a verified webhook. */
export async function syncCheckout(deps: CheckoutDeps, checkoutId: string): Promise<void> {
  const record = await deps.store.get(checkoutId);
  if (record && record.provider === deps.provider.name) await learnFromProvider(deps, record);
}
