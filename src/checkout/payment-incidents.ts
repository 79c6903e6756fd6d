import { errorMessage } from '../errors';
import type { PaymentStatus } from '../payments/payment-provider';
import type { CheckoutDeps } from './checkout-deps';
import type { CheckoutRecord, IncidentKind, PaymentIncident } from './checkout-record';

/**
 * The incident a provider's status means for a checkout whose outcome was recorded, if any: a
 * paid checkout refunded or charged back; a payment arriving after a cancel or an expiry; and the
 * refund of such a late payment.
 */
export function incidentOf(
  record: CheckoutRecord,
  status: PaymentStatus,
  latePaymentNote?: string,
): Omit<PaymentIncident, 'at'> | undefined {
  const { outcome } = record;
  if (!outcome) return undefined;
  const transactionId = status.transactionId;
  const said = (kind: IncidentKind, note: string | undefined) => ({
    kind,
    ...(transactionId ? { transactionId } : {}),
    ...(note ? { note } : {}),
  });
  if (outcome === 'paid') {
    if (status.state === 'refunded') return said('refund', status.reason ?? 'refunded');
    if (status.state === 'charged_back') return said('chargeback', status.reason ?? 'charged back');
    return undefined;
  }
  if (status.state === 'paid') {
    // Every outcome but paid is told as a cancel: the platform gets no finish for this money.
    const note = `paid after the checkout ${outcome}: the platform was told cancel`;
    return said('late_payment', latePaymentNote ? `${note}; ${latePaymentNote}` : note);
  }
  const lateOne = record.incidents?.some(
    (incident) => incident.kind === 'late_payment' && incident.transactionId === transactionId,
  );
  if (lateOne && (status.state === 'refunded' || status.state === 'charged_back')) {
    return said(status.state === 'refunded' ? 'refund' : 'chargeback', 'of the late payment');
  }
  return undefined;
}

/**
 * A checkout whose outcome is recorded heard from its provider again (a webhook, the sandbox's
 * page): the provider is asked, and what it says after the outcome is an incident, recorded once
 * per kind and payment, logged at `error` and followed up; never a second finish or a cancel,
 * nothing in the checkout's state changes. Returns the incident when it is new.
 */
export async function followUpAfterOutcome(
  deps: CheckoutDeps,
  record: CheckoutRecord,
): Promise<PaymentIncident | undefined> {
  if (!record.providerRef || !record.outcome) return undefined;
  const status = await deps.provider.getStatus({
    providerRef: record.providerRef,
    checkoutId: record.checkoutId,
  });
  const found = incidentOf(record, status, deps.provider.latePaymentNote);
  if (!found) return undefined;
  // A late payment is returned to the payer where the provider can and the shop wants it (an
  // API Pix `devolucao`), before the incident is kept: asking again is the same return, so a
  // failure here is tried again by the next hint, and the incident's story says what was done.
  // A return the provider refuses, or that cannot be asked now, does not keep the incident from
  // being told: its note says so, and the next hint asks again.
  const returned =
    found.kind === 'late_payment' && deps.provider.returnLatePayment
      ? await deps.provider
          .returnLatePayment({ providerRef: record.providerRef, checkoutId: record.checkoutId })
          .catch((error: unknown) => {
            deps.log.error('could not return a late payment to the payer; tried again later', {
              checkoutId: record.checkoutId,
              provider: deps.provider.name,
              errMessage: errorMessage(error),
            });
            return 'not returned to the payer yet (the provider refused or was away)';
          })
      : undefined;
  const told = returned ? { ...found, note: `${found.note ?? ''}; ${returned}` } : found;
  const incident: PaymentIncident = { ...told, at: deps.clock().toISOString() };
  // The ERP's delivery first: its job id is the incident's, so a retry of this event after a
  // failure below adds it again as a no-op, and no incident is recorded without its delivery.
  await deps.incidents?.toErp({
    ...incident,
    checkoutId: record.checkoutId,
    serviceId: record.serviceId,
    provider: deps.provider.name,
    outcome: record.outcome,
    ...(status.amount ? { amount: status.amount } : {}),
  });
  const added = await deps.store.addIncident(record.checkoutId, incident);
  if (added !== 'added') return undefined;
  deps.incidents?.count(incident.kind);
  deps.log.error(
    'payment incident after the outcome: the platform is not told, the shop must act',
    {
      checkoutId: record.checkoutId,
      serviceId: record.serviceId,
      provider: deps.provider.name,
      outcome: record.outcome,
      ...incident,
    },
  );
  await deps.replication.held('shop-data', 'sync-queue');
  return incident;
}
