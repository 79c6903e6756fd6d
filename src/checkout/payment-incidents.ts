import { errorMessage } from '../errors';
import type { MedReturn, PaymentStatus } from '../payments/payment-provider';
import type { CheckoutDeps } from './checkout-deps';
import type { CheckoutRecord, IncidentKind, PaymentIncident } from './checkout-record';
import { incidentRecord } from './payment-record';

function isKnown(record: CheckoutRecord, found: Pick<PaymentIncident, 'kind' | 'transactionId'>) {
  return (record.incidents ?? []).some(
    (known) => known.kind === found.kind && known.transactionId === found.transactionId,
  );
}

/** Whether the record holds a late payment of this transaction. */
const lateOf = (record: CheckoutRecord, transactionId: string | undefined) =>
  isKnown(record, { kind: 'late_payment', transactionId });

/** A MED return's incident: its natureza, and what the bank did, for the shop to answer it. */
function medIncident(medReturn: MedReturn, transactionId: string | undefined) {
  const { natureza, id, amount, status } = medReturn;
  const state = status === 'DEVOLVIDO' ? 'returned' : 'blocked, being returned';
  const money = `${amount.currency} ${(amount.amountMinor / 100).toFixed(2)}`;
  return {
    kind: 'med_return' as const,
    ...(transactionId ? { transactionId } : {}),
    natureza,
    note: `${natureza}: ${money} ${state} through the MED (devolução ${id})`,
  };
}

/**
 * The incident a provider's status means for a checkout whose outcome was recorded, if any: a
 * paid checkout returned through the MED, refunded or charged back; a payment arriving after a
 * cancel or an expiry; and the return of such a late payment.
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
  const med = status.medReturn;
  if (med && (outcome === 'paid' || lateOf(record, transactionId))) {
    // Whatever else the Pix says after its MED return (a full one reads as refunded) is that
    // return: once it is known, nothing more is told of this Pix.
    const incident = medIncident(med, transactionId);
    return isKnown(record, incident) ? undefined : incident;
  }
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
  if (
    lateOf(record, transactionId) &&
    (status.state === 'refunded' || status.state === 'charged_back')
  ) {
    return said(status.state === 'refunded' ? 'refund' : 'chargeback', 'of the late payment');
  }
  return undefined;
}

/**
 * A late payment returned to the payer, where the provider can and the shop wants it: what was
 * done, for the incident's story. A return the provider refuses, or that cannot be asked now,
 * does not keep the incident from being told: its note says so, and the next hint asks again.
 */
async function returnLatePayment(
  deps: CheckoutDeps,
  providerRef: string,
  record: CheckoutRecord,
): Promise<string | undefined> {
  const { provider } = deps;
  if (!provider.returnsLatePayments || !provider.refundPayment) return undefined;
  return provider
    .refundPayment({ providerRef, checkoutId: record.checkoutId }, 'late_payment')
    .catch((error: unknown) => {
      deps.log.error('could not return a late payment to the payer; tried again later', {
        checkoutId: record.checkoutId,
        provider: deps.provider.name,
        errMessage: errorMessage(error),
      });
      return 'not returned to the payer yet (the provider refused or was away)';
    });
}

/**
 * A new incident kept (the ERP's payment record, the record, the count, the log); returned only
 * when this call added it. `status`: the payment as the provider reports it now, if read.
 */
export async function keepIncident(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  incident: PaymentIncident,
  status: Parameters<typeof incidentRecord>[2] = {},
): Promise<PaymentIncident | undefined> {
  // The ERP's payment record first: its job id is the record's, so a retry of this event after
  // a failure below adds it again as a no-op, and no incident is recorded without its record.
  await deps.paymentRecords?.queue(incidentRecord(record, incident, status));
  const added = await deps.store.addIncident(record.checkoutId, incident, record);
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

/**
 * A checkout whose outcome is recorded heard from its provider again (a webhook, the sandbox's
 * page): the provider is asked, and what it says after the outcome is an incident, recorded once
 * per kind and payment, logged at `error` and followed up; never a second finish or a cancel,
 * nothing in the checkout's state changes. Returns the incident when it is new.
 */
export async function followUpAfterOutcome(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  /** The status the caller has just read, if it has (not read again). */
  known?: PaymentStatus,
): Promise<PaymentIncident | undefined> {
  if (!record.providerRef || !record.outcome) return undefined;
  const ref = { providerRef: record.providerRef, checkoutId: record.checkoutId };
  const status = known ?? (await deps.provider.getStatus(ref));
  const found = incidentOf(record, status, deps.provider.latePaymentNote);
  if (!found) return undefined;
  // Returned before the incident is kept: asking again is the same return (an API Pix
  // `devolucao`), so a failure here is tried again by the next hint, known incident or not.
  const returned =
    found.kind === 'late_payment'
      ? await returnLatePayment(deps, record.providerRef, record)
      : undefined;
  // One recorded already is told nothing again: a duplicate webhook, months later, long after
  // its ERP delivery's job is gone, sends no second record.
  if (isKnown(record, found)) return undefined;
  const told = returned ? { ...found, note: `${found.note ?? ''}; ${returned}` } : found;
  return keepIncident(deps, record, { ...told, at: deps.clock().toISOString() }, status);
}
