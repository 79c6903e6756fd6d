import { z } from 'zod';
import { minorOf } from '../money';
import type { PaidWith, PaymentState, PaymentStatus } from '../payment-provider';
import { feesMinor, moneyFields, settlementOf } from './mercadopago-settlement';

/*
 * Mercado Pago's payments as its API reports them ("Get payment", and the search that returns
 * the same objects), read as the connector's payment status.
 */

/** Mercado Pago's payment statuses, as docs/payment-providers.md maps them. */
// A Map, not an object: a status named like an Object property (`constructor`) is unknown.
const STATES = new Map<string, PaymentState>(
  Object.entries({
    approved: 'paid',
    pending: 'processing',
    in_process: 'processing',
    authorized: 'processing',
    in_mediation: 'processing', // a dispute the buyer opened: the money held until decided
    rejected: 'failed',
    cancelled: 'canceled',
    refunded: 'refunded',
    charged_back: 'charged_back',
  }),
);

export const paymentSchema = z.looseObject({
  id: z.union([z.number(), z.string()]).transform(String),
  status: z.string(),
  status_detail: z.string().nullish(),
  external_reference: z.string().nullish(),
  transaction_amount: z.number().nullish(),
  currency_id: z.string().nullish(),
  payment_type_id: z.string().nullish(),
  payment_method_id: z.string().nullish(),
  ...moneyFields,
});
export type Payment = z.output<typeof paymentSchema>;

/** The answer of GET /v1/payments/search: the payments of one checkout. */
export const searchSchema = z.looseObject({ results: z.array(paymentSchema) });

/**
 * How a payment was made, from its `payment_type_id` (Mercado Pago's reference, "Get payment" and
 * "Get payment methods": credit_card, debit_card, prepaid_card; bank_transfer is Pix or PSE,
 * told apart by `payment_method_id`; ticket is a boleto or another slip paid in cash). Any other
 * type (account_money, digital_currency, atm...) is none of the three: no method.
 */
function methodOf(payment: Payment): PaidWith | undefined {
  switch (payment.payment_type_id) {
    case 'credit_card':
    case 'debit_card':
    case 'prepaid_card':
      return 'card';
    case 'bank_transfer':
      return payment.payment_method_id === 'pix' ? 'pix' : undefined;
    case 'ticket':
      return 'boleto';
    default:
      return undefined;
  }
}

/**
 * A payment as the connector's status: its state, how it was paid, what the buyer paid (and the
 * interest in it), and, once settled, its money (`settlementOf`).
 */
export function paymentStatus(payment: Payment): PaymentStatus {
  const state = STATES.get(payment.status) ?? 'pending';
  const currency = payment.currency_id ?? 'BRL';
  const paid = payment.transaction_details?.total_paid_amount ?? payment.transaction_amount;
  const financing = feesMinor(payment, 'financing_fee') ?? 0;
  const reason =
    state === 'failed' || state === 'canceled' || state === 'refunded' || state === 'charged_back'
      ? `payment ${payment.status} at Mercado Pago`
      : undefined;
  const method = methodOf(payment);
  const settlement = SETTLED.has(state) ? settlementOf(payment, method, currency) : undefined;
  return {
    state,
    transactionId: payment.id,
    ...(method ? { method } : {}),
    ...(paid === null || paid === undefined
      ? {}
      : { amount: { amountMinor: minorOf(paid), currency } }),
    ...(financing > 0 ? { interest: { amountMinor: financing, currency } } : {}),
    ...(settlement ? { settlement } : {}),
    reason,
  };
}

/** The states of a payment whose money was settled (and stays told after it went back). */
const SETTLED: ReadonlySet<PaymentState> = new Set(['paid', 'refunded', 'charged_back']);
