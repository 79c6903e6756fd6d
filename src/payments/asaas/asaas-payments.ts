import { z } from 'zod';
import { minorOf } from '../money';
import type { PaidWith, PaymentState, PaymentStatus } from '../payment-provider';

/*
 * Asaas's payments as its API reports them (a checkout is paid through one payment, or one
 * installment plan of several), read as the connector's payment status.
 */

/**
 * Asaas's payment statuses (docs.asaas.com, "Payment status"), as docs/payment-providers.md maps
 * them. OVERDUE depends on the payment (`canBePaidAfterDueDate`), see `paymentState`.
 */
// A Map, not an object: a status named like an Object property (`constructor`) is unknown.
const STATES = new Map<string, PaymentState>(
  Object.entries({
    RECEIVED: 'paid',
    CONFIRMED: 'paid',
    RECEIVED_IN_CASH: 'paid',
    DUNNING_RECEIVED: 'paid',
    PENDING: 'processing',
    AWAITING_RISK_ANALYSIS: 'processing',
    DUNNING_REQUESTED: 'processing',
    REFUNDED: 'refunded',
    REFUND_REQUESTED: 'refunded',
    REFUND_IN_PROGRESS: 'refunded',
    CHARGEBACK_REQUESTED: 'charged_back',
    CHARGEBACK_DISPUTE: 'charged_back',
    AWAITING_CHARGEBACK_REVERSAL: 'charged_back',
  }),
);

const paymentSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  value: z.number(),
  /** Interest the payer paid on top (Asaas reports it per payment), in reais. */
  interestValue: z.number().nullish(),
  billingType: z.string().nullish(),
  /** The installment plan a card payment in installments belongs to: one payment per installment. */
  installment: z.string().nullish(),
  canBePaidAfterDueDate: z.boolean().nullish(),
  deleted: z.boolean().nullish(),
  checkoutSession: z.string().nullish(),
  externalReference: z.string().nullish(),
});
export type Payment = z.output<typeof paymentSchema>;

export const listSchema = z.looseObject({
  data: z.array(paymentSchema),
  hasMore: z.boolean().nullish(),
});
export function groupByPlan(payments: Payment[]): Map<string, Payment[]> {
  const plans = new Map<string, Payment[]>();
  for (const payment of payments) {
    const plan = payment.installment ?? payment.id;
    plans.set(plan, [...(plans.get(plan) ?? []), payment]);
  }
  return plans;
}

/**
 * How a payment was made, from its `billingType` (docs.asaas.com, "Create new payment" and the
 * payment object: BOLETO, CREDIT_CARD, PIX, or UNDEFINED while the customer has not chosen).
 * UNDEFINED, and any type that is none of the three, is no method.
 */
const METHODS = new Map<string, PaidWith>([
  ['CREDIT_CARD', 'card'],
  ['PIX', 'pix'],
  ['BOLETO', 'boleto'],
]);

function paymentState(payment: Payment): PaymentState {
  if (payment.status === 'OVERDUE') {
    // Past its due date: still payable when Asaas says so (a boleto), otherwise it cannot be.
    return payment.canBePaidAfterDueDate ? 'processing' : 'expired';
  }
  return STATES.get(payment.status) ?? 'pending';
}

/** One payment, or one plan of installments, as a status: its total, its interest, its state. */
export function planStatus(payments: Payment[]): PaymentStatus {
  const states = payments.map(paymentState);
  const state: PaymentState = states.includes('charged_back')
    ? 'charged_back'
    : states.includes('refunded')
      ? 'refunded'
      : states.every((s) => s === 'paid')
        ? 'paid'
        : states.includes('processing') || states.includes('paid')
          ? 'processing'
          : (states[0] ?? 'pending');
  const first = payments[0];
  const amountMinor = payments.reduce((sum, p) => sum + minorOf(p.value), 0);
  const interestMinor = payments.reduce((sum, p) => sum + minorOf(p.interestValue ?? 0), 0);
  // The payments of one plan are of one billing type (Asaas's plans are a card's installments).
  const method = METHODS.get(first?.billingType ?? '');
  return {
    state,
    transactionId: first?.installment ?? first?.id,
    ...(method ? { method } : {}),
    amount: { amountMinor, currency: 'BRL' },
    ...(interestMinor > 0 ? { interest: { amountMinor: interestMinor, currency: 'BRL' } } : {}),
    ...(state === 'refunded' || state === 'charged_back' || state === 'expired'
      ? { reason: `payment ${first?.status ?? state} at Asaas` }
      : {}),
  };
}
