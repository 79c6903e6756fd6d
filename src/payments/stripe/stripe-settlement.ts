import type Stripe from 'stripe';
import type { Settlement } from '../payment-provider';

/*
 * What Stripe reports of a paid charge's money, read from what a status read expands (the
 * charge, its balance transaction, its payment method details) as the connector's Settlement.
 */

/** `{ settlement }` of a paid charge when Stripe reports any of it, else nothing. */
export function settledBy(
  charge: Stripe.Charge | null,
  currency: string | null,
): { settlement?: Settlement } {
  const settlement = charge ? settlementOf(charge, currency) : undefined;
  return settlement ? { settlement } : {};
}

/**
 * What Stripe reports of a paid charge's money (a Settlement), each figure absent when Stripe does
 * not say it (undefined when it says none):
 * - `providerFee` and `net` from the charge's balance transaction
 *   (https://docs.stripe.com/api/balance_transactions/object), expanded with the session: see
 *   `feesOf`. Only when the transaction is in the session's currency: with a conversion (its
 *   `exchange_rate`, another `currency`) they are in another money than the payment's, and are
 *   left absent rather than converted back.
 * - `releaseDate`: the transaction's `available_on`, "the date that the transaction's net funds
 *   become available in the Stripe balance", a Unix timestamp. Read as a day in UTC: Stripe gives
 *   it as midnight UTC of that day (the sample balance transaction of its reference, as client
 *   libraries reproduce it, has 1571443200: 2019-10-19T00:00:00Z), so read in Brazil's time
 *   (UTC-3) it would be the day before.
 * - `installments` and `pixE2e` from the charge's `payment_method_details`
 *   (https://docs.stripe.com/api/charges/object): see `installmentsOf` and `pixE2eOf`.
 * Of a refunded or disputed charge, these stay the payment's own (its charge's transaction):
 * the refund's and the dispute's are other balance transactions, not read here.
 */
export function settlementOf(
  charge: Stripe.Charge,
  currency: string | null | undefined,
): Settlement | undefined {
  const transaction =
    typeof charge.balance_transaction === 'object' ? charge.balance_transaction : null;
  const sameMoney =
    transaction !== null &&
    !!currency &&
    transaction.currency.toLowerCase() === currency.toLowerCase();
  const settlement: Settlement = {
    ...(sameMoney ? feesOf(transaction) : {}),
    ...(transaction && Number.isInteger(transaction.available_on)
      ? { releaseDate: new Date(transaction.available_on * 1000).toISOString().slice(0, 10) }
      : {}),
    ...installmentsOf(charge),
    ...pixE2eOf(charge),
  };
  return Object.keys(settlement).length > 0 ? settlement : undefined;
}

/**
 * The `fee_details` types that are Stripe's own (the balance transaction's reference: "one of
 * application_fee, payment_method_passthrough_fee, stripe_fee or tax"): Stripe's fee, the
 * third parties' fees it passes through and collects, and the tax on its fee (a `tax` earned by
 * no Connect `application`). `application_fee` is the vendor's, taken on a connected account's
 * direct charge (https://support.stripe.com/questions/calculate-stripe-and-platform-application-fees-paid:
 * Stripe's fee is the `fee` less the `application_fee`).
 */
const STRIPE_FEES = new Set(['stripe_fee', 'payment_method_passthrough_fee', 'tax']);

/**
 * A balance transaction's `net` ("amount - fee": what reaches the balance it is in, the connected
 * shop's, after Stripe's fee and the vendor's), and Stripe's own fee: the `fee_details` Stripe
 * keeps (STRIPE_FEES). When a detail is of another type (whose fee it is not known), is a tax
 * earned by an application, or the details do not add up to `fee`, the provider's fee is left
 * absent (the net stays: it is Stripe's own figure).
 */
function feesOf(transaction: Stripe.BalanceTransaction): Pick<Settlement, 'providerFee' | 'net'> {
  const currency = transaction.currency.toUpperCase();
  const net = { net: { amountMinor: transaction.net, currency } };
  let providerFee = 0;
  let total = 0;
  for (const detail of transaction.fee_details) {
    if (detail.currency.toLowerCase() !== transaction.currency.toLowerCase()) return net;
    total += detail.amount;
    if (detail.type === 'application_fee') continue;
    if (!STRIPE_FEES.has(detail.type) || (detail.type === 'tax' && detail.application)) return net;
    providerFee += detail.amount;
  }
  if (total !== transaction.fee) return net;
  return { providerFee: { amountMinor: providerFee, currency }, ...net };
}

/**
 * The installments the buyer chose, from the charge's `payment_method_details`
 * (https://docs.stripe.com/api/charges/object#charge_object-payment_method_details-card-installments):
 * a card's `installments.plan.count`, "for fixed_count installment plans, the number of
 * installment payments your customer will make to their credit card"; 1 for a Pix or a boleto
 * (one payment by nature). A card whose `installments` or `plan` is null, or whose plan is
 * another type (`revolving`, `bonus`: no count), leaves it absent: the reference says only
 * "installment details for this payment" and "installment plan selected for the payment", both
 * nullable, never that null means one payment (in BRL, STRIPE_OFFER: Stripe splits no card, so a
 * card's installments are absent there).
 */
function installmentsOf(charge: Stripe.Charge): Pick<Settlement, 'installments'> {
  const details = charge.payment_method_details;
  if (details?.type === 'pix' || details?.type === 'boleto') return { installments: 1 };
  const plan = details?.type === 'card' ? details.card?.installments?.plan : null;
  const count = plan?.type === 'fixed_count' ? plan.count : null;
  return typeof count === 'number' && Number.isInteger(count) && count >= 1
    ? { installments: count }
    : {};
}

/** A Pix end-to-end id (BCB's form): `E`, the payer's ISPB, yyyyMMddHHmm, 11 letters or digits. */
const PIX_E2E = /^E\d{8}\d{12}[A-Za-z0-9]{11}$/;

/**
 * A Pix's end-to-end id: the charge's `payment_method_details.pix.bank_transaction_id`
 * (https://docs.stripe.com/api/charges/object#charge_object-payment_method_details-pix-bank_transaction_id:
 * "unique transaction id generated by BCB", nullable). The reference does not call it the
 * end-to-end id: it is taken only when it has that id's form, else left absent.
 */
function pixE2eOf(charge: Stripe.Charge): Pick<Settlement, 'pixE2e'> {
  const details = charge.payment_method_details;
  const id = details?.type === 'pix' ? details.pix?.bank_transaction_id : undefined;
  return typeof id === 'string' && PIX_E2E.test(id) ? { pixE2e: id } : {};
}
