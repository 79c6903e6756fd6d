import { z } from 'zod';
import { minorOf } from '../money';
import { cardOf, paidAtOf } from '../payment-facts';
import type { PaidWith, PaymentState, PaymentStatus, Settlement } from '../payment-provider';
import { ASAAS_API } from './asaas-api';

/**
 * Asaas's payment statuses (docs.asaas.com, "Payment status"), as docs/payment-providers.md maps
 * them. OVERDUE and a Pix's CONFIRMED depend on the payment, see `paymentState`.
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

/** A split within the payment (its `split` list): `totalValue` in reais, and its `status`. */
const splitSchema = z.looseObject({
  totalValue: z.number().nullish(),
  status: z.string().nullish(),
  cancellationReason: z.string().nullish(),
});

/**
 * What the settlement is read from. A field of an unexpected shape is read as absent (`catch`):
 * it leaves a settlement figure out, never the payment's status unread.
 */
const settlementFields = {
  /** "Net value of the charge after discounting the Asaas fee" (the payment object), in reais. */
  netValue: z.number().nullish().catch(null),
  /** "Date when the credit became available": set once Asaas credited the payment. */
  creditDate: z.string().nullish().catch(null),
  /** "Estimated date when the credit will be available": Asaas's own date before the credit. */
  estimatedCreditDate: z.string().nullish().catch(null),
  /** The installment's number within its plan (`installment`), 1 to the plan's count. */
  installmentNumber: z.number().int().nullish().catch(null),
  /** Anticipated (or being): an anticipation of its own fee and net, which the payment omits. */
  anticipated: z.boolean().nullish().catch(null),
  /** The Pix transaction that paid it (GET /v3/pix/transactions/{id} tells its end-to-end id). */
  pixTransaction: z.string().nullish().catch(null),
  split: z.array(splitSchema).nullish().catch(null),
  /** The day the customer paid (`YYYY-MM-DD`): a card's confirmation, a Pix's receipt. */
  clientPaymentDate: z.string().nullish().catch(null),
  /** The day a card payment was confirmed (`YYYY-MM-DD`). */
  confirmedDate: z.string().nullish().catch(null),
  /** The day the payment was received (`YYYY-MM-DD`). */
  paymentDate: z.string().nullish().catch(null),
  /** A card's last four digits (`creditCardNumber`) and brand (`creditCardBrand`, VISA...). */
  creditCard: z
    .looseObject({
      creditCardNumber: z.string().nullish(),
      creditCardBrand: z.string().nullish(),
    })
    .nullish()
    .catch(null),
  /** The customer who paid (`cus_...`): GET /v3/customers/{id} names them. */
  customer: z.string().nullish().catch(null),
  /** Its refunds, each `value` (reais) and `status` (PENDING, DONE, CANCELLED...): in part or in full. */
  refunds: z
    .array(z.looseObject({ value: z.number().nullish(), status: z.string().nullish() }))
    .nullish()
    .catch(null),
};

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
  ...settlementFields,
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
  // A Pix CONFIRMED may be held up to 72 h ("bloqueio cautelar"), then RECEIVED or REFUNDED.
  if (payment.status === 'CONFIRMED' && payment.billingType === 'PIX') return 'processing';
  // Past its due date: still payable when Asaas says so (a boleto), otherwise it cannot be.
  if (payment.status === 'OVERDUE') return payment.canBePaidAfterDueDate ? 'processing' : 'expired';
  return STATES.get(payment.status) ?? 'pending';
}

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
  const settlement = SETTLED.has(state) ? settlementOf(payments) : undefined;
  return {
    state,
    transactionId: first?.installment ?? first?.id,
    ...(method ? { method } : {}),
    amount: { amountMinor, currency: 'BRL' },
    ...(interestMinor > 0 ? { interest: { amountMinor: interestMinor, currency: 'BRL' } } : {}),
    ...(state === 'refunded' || state === 'charged_back' || state === 'expired'
      ? { reason: `payment ${first?.status ?? state} at Asaas` }
      : {}),
    ...(settlement ? { settlement } : {}),
  };
}

/** The states whose payment has a settlement: paid, and paid then returned (as it was paid). */
const SETTLED: ReadonlySet<PaymentState> = new Set(['paid', 'refunded', 'charged_back']);

/**
 * The settlement of one payment, or a plan of installments, each figure left out when a payment
 * of the plan does not tell it:
 * - `providerFee`: `value - netValue`, summed (splits are taken from netValue, so the vendor's
 *   fee is not in it).
 * - `net`: `netValue` less what the splits take (`splitTaken`), summed.
 * - `releaseDate`: `creditDate`, else `estimatedCreditDate`; of a plan, the last installment's.
 * - `installments`: `installmentsOf`.
 * - `paidAt`: the day the customer paid (`clientPaymentDate`, else `confirmedDate`, else
 *   `paymentDate`): Asaas gives the day only. Of a plan, its first payment's.
 * - `card`: `cardOfPayment`; the payer is read apart (the customer, asaas-provider.ts).
 * - `institutionCnpj`: Asaas's (ASAAS_API): it takes every payment made through it.
 * No money figure of an anticipated payment nor of one received in cash. A refunded or charged
 * back payment keeps the figures it was paid with.
 */
export function settlementOf(payments: readonly Payment[]): Settlement | undefined {
  const installments = installmentsOf(payments);
  const first = payments[0];
  const settlement: Settlement = {
    ...moneyOf(payments),
    ...(installments !== undefined ? { installments } : {}),
    ...paidAtOf(first?.clientPaymentDate ?? first?.confirmedDate ?? first?.paymentDate),
    ...(first && METHODS.get(first.billingType ?? '') === 'card' ? cardOfPayment(first) : {}),
    ...(first && ASAAS_API.institution ? { institutionCnpj: ASAAS_API.institution.cnpj } : {}),
  };
  return Object.keys(settlement).length > 0 ? settlement : undefined;
}

function moneyOf(
  payments: readonly Payment[],
): Pick<Settlement, 'providerFee' | 'net' | 'releaseDate'> {
  const untold = payments.some((p) => p.anticipated || p.status === 'RECEIVED_IN_CASH');
  if (untold || payments.length === 0) return {};
  const nets = payments.map((p) => (typeof p.netValue === 'number' ? minorOf(p.netValue) : NaN));
  const feeMinor = payments.reduce((sum, p, i) => sum + minorOf(p.value) - (nets[i] ?? NaN), 0);
  const netMinor = payments.reduce((sum, p, i) => sum + (nets[i] ?? NaN) - splitsTaken(p), 0);
  const dates = payments.map(creditDateOf);
  const releaseDate = dates.every((d) => d !== undefined) ? dates.sort().at(-1) : undefined;
  return {
    ...(feeMinor >= 0 ? { providerFee: { amountMinor: feeMinor, currency: 'BRL' } } : {}),
    ...(netMinor >= 0 ? { net: { amountMinor: netMinor, currency: 'BRL' } } : {}),
    ...(releaseDate ? { releaseDate } : {}),
  };
}

/** The payment's credit date (`YYYY-MM-DD`, Asaas's own): credited, else estimated. */
function creditDateOf(payment: Payment): string | undefined {
  const date = payment.creditDate ?? payment.estimatedCreditDate;
  return date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : undefined;
}

/** What a payment's splits take from the shop, in centavos; NaN when one's outcome is untold. */
function splitsTaken(payment: Payment): number {
  return (payment.split ?? []).reduce((sum, split) => sum + splitTaken(split), 0);
}

/**
 * What one split takes: its totalValue when to be, or was, transferred (PENDING,
 * AWAITING_CREDIT, DONE, REFUNDED); nothing when cancelled (the shop keeps it), unless by the
 * payment's own refund. NaN when blocked (undecided) or of an undocumented status.
 */
function splitTaken(split: z.output<typeof splitSchema>): number {
  const total = typeof split.totalValue === 'number' ? minorOf(split.totalValue) : NaN;
  switch (split.status) {
    case 'PENDING':
    case 'AWAITING_CREDIT':
    case 'DONE':
    case 'REFUNDED':
      return total;
    case 'CANCELLED':
      return split.cancellationReason === 'PAYMENT_REFUNDED' ? total : 0;
    default:
      return NaN;
  }
}

/**
 * The installments the buyer chose: one for a payment of no plan; a plan's payments when they
 * are numbered 1 to their count (none missing from the list).
 */
function installmentsOf(payments: readonly Payment[]): number | undefined {
  if (payments.length === 0) return undefined;
  if (!payments[0]?.installment) return payments.length === 1 ? 1 : undefined;
  const numbers = payments.map((p) => p.installmentNumber ?? NaN).sort((a, b) => a - b);
  return numbers.every((n, i) => n === i + 1) ? payments.length : undefined;
}

/**
 * A card's details as the payment reports them (`creditCard`: `creditCardNumber`, the last four
 * digits; `creditCardBrand`). Asaas tells neither an authorization code nor credit from debit
 * (its invoice lets a CREDIT_CARD payment be paid by a debit card, "Credit Card Charges"): none.
 */
function cardOfPayment(payment: Payment): Pick<Settlement, 'card'> {
  return cardOf({
    brand: payment.creditCard?.creditCardBrand,
    last4: payment.creditCard?.creditCardNumber,
  });
}
