import { z } from 'zod';
import { minorOf } from '../money';
import { cardOf, paidAtOf, payerOf } from '../payment-facts';
import type { PaidWith, Settlement } from '../payment-provider';
import { MERCADOPAGO_API } from './mercadopago-api';

const identification = z.looseObject({ type: z.string().nullish(), number: z.string().nullish() });

/** The fields of a payment (`paymentSchema`'s) its money is read from. */
export const moneyFields = {
  /**
   * What the buyer paid in all (the price plus the financing of installments), and the
   * collector's "Net amount received". The settlement's figures below are read leniently: one
   * Mercado Pago writes in an unexpected shape is left out of the settlement (absent, never
   * guessed) rather than failing the whole read of the payment's status.
   */
  transaction_details: z
    .looseObject({
      total_paid_amount: z.number().nullish(),
      net_received_amount: z.number().nullish().catch(undefined),
    })
    .nullish(),
  fee_details: z
    .array(
      z.looseObject({
        type: z.string().nullish(),
        amount: z.number().nullish(),
        fee_payer: z.string().nullish().catch(undefined),
      }),
    )
    .nullish(),
  installments: z.number().int().positive().nullish().catch(undefined),
  /** When the money is available to the collector: an ISO date-time with Mercado Pago's offset. */
  money_release_date: z.string().nullish().catch(undefined),
  /** When the payment was approved (the money moved): an ISO date-time with an offset. */
  date_approved: z.string().nullish().catch(undefined),
  /** The card issuer's authorization code ("Get payment": `authorization_code`). */
  authorization_code: z.string().nullish().catch(undefined),
  /** The card: its last four digits and its holder ("Get payment": `card`). */
  card: z
    .looseObject({
      last_four_digits: z.string().nullish(),
      cardholder: z
        .looseObject({ name: z.string().nullish(), identification: identification.nullish() })
        .nullish(),
    })
    .nullish()
    .catch(undefined),
  /** The payer ("Get payment": `payer`): names and identification where Mercado Pago has them. */
  payer: z
    .looseObject({
      first_name: z.string().nullish(),
      last_name: z.string().nullish(),
      identification: identification.nullish(),
    })
    .nullish()
    .catch(undefined),
};

type PaymentMoney = z.output<z.ZodObject<typeof moneyFields>> & {
  payment_type_id?: string | null;
  payment_method_id?: string | null;
};

/**
 * The centavos of the payment's fees of this `type` (and `fee_payer`, when given), summed; undefined
 * when Mercado Pago lists none. Each amount is converted on its own, as `minorOf` does (reais with
 * two decimals to an integer, rounded: no float error carried into a sum).
 */
export function feesMinor(payment: PaymentMoney, type: string, payer?: string): number | undefined {
  const fees = (payment.fee_details ?? []).filter(
    (fee) =>
      fee.type === type &&
      (payer === undefined || fee.fee_payer === payer) &&
      typeof fee.amount === 'number',
  );
  return fees.length ? fees.reduce((sum, fee) => sum + minorOf(fee.amount ?? 0), 0) : undefined;
}

/**
 * What Mercado Pago reports of a settled payment's money (GET /v1/payments/{id}), each figure
 * absent when unsaid:
 * - providerFee: the `mercadopago_fee` details the collector pays (not the vendor's
 *   `application_fee`, nor the buyer's `financing_fee`, told as `interest`).
 * - net: `transaction_details.net_received_amount`, after Mercado Pago's and the vendor's fees.
 * - releaseDate: `money_release_date` (`releaseDateOf`); installments: `installmentsOf`.
 * - pixE2e and pixTxid: never; no field Mercado Pago documents is either.
 * - paidAt: `date_approved`; payer and card: `payerOfPayment`, `cardOfPayment`.
 * - institutionCnpj: Mercado Pago's (MERCADOPAGO_API): it takes every payment made through it.
 */
export function settlementOf(
  payment: PaymentMoney,
  method: PaidWith | undefined,
  currency: string,
): Settlement | undefined {
  const providerFee = feesMinor(payment, 'mercadopago_fee', 'collector');
  const net = payment.transaction_details?.net_received_amount;
  const settlement: Settlement = {
    ...(providerFee === undefined ? {} : { providerFee: { amountMinor: providerFee, currency } }),
    ...(net === null || net === undefined ? {} : { net: { amountMinor: minorOf(net), currency } }),
    ...releaseDateOf(payment.money_release_date),
    ...installmentsOf(payment, method),
    ...paidAtOf(payment.date_approved),
    ...payerOfPayment(payment),
    ...(method === 'card' ? cardOfPayment(payment) : {}),
    ...(MERCADOPAGO_API.institution ? { institutionCnpj: MERCADOPAGO_API.institution.cnpj } : {}),
  };
  return Object.keys(settlement).length > 0 ? settlement : undefined;
}

/**
 * The day of `money_release_date` as written, in Mercado Pago's own offset (converted, it could
 * move to the next day); anything but a date-time of a real day is left out.
 */
function releaseDateOf(written: string | null | undefined): { releaseDate?: string } {
  const day = /^(\d{4}-\d{2}-\d{2})(?:T|$)/.exec(written ?? '')?.[1];
  if (!day) return {};
  const real = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(real.getTime()) && real.toISOString().startsWith(day)
    ? { releaseDate: day }
    : {};
}

/**
 * The installments the buyer chose: a card's `installments` as Mercado Pago reports it; a Pix or a
 * boleto is paid at once (1, as Mercado Pago reports them too); another way of paying (the
 * account's balance) as reported.
 */
function installmentsOf(
  payment: PaymentMoney,
  method: PaidWith | undefined,
): { installments?: number } {
  if (method === 'pix' || method === 'boleto') return { installments: 1 };
  return payment.installments ? { installments: payment.installments } : {};
}

/**
 * The payer: `payer.first_name` and `last_name`, else the card's `cardholder.name`; the document
 * `payer.identification.number` (a CPF or CNPJ, its `type`), else the cardholder's.
 */
function payerOfPayment(payment: PaymentMoney): Pick<Settlement, 'payer'> {
  const { payer, card } = payment;
  const name = [payer?.first_name, payer?.last_name].filter((part) => part?.trim()).join(' ');
  return payerOf(
    name || card?.cardholder?.name,
    payer?.identification?.number ?? card?.cardholder?.identification?.number,
  );
}

/** The funding `payment_type_id` names (credit_card, debit_card, prepaid_card). */
const FUNDING: Readonly<Record<string, string>> = {
  credit_card: 'credit',
  debit_card: 'debit',
  prepaid_card: 'prepaid',
};

/**
 * A card's details: the brand is the card's `payment_method_id` (visa, master, amex, elo,
 * hipercard, diners; a debit card's debvisa, debmaster, debelo), the last four digits
 * `card.last_four_digits`, the code `authorization_code`, the funding its `payment_type_id`.
 */
function cardOfPayment(payment: PaymentMoney): Pick<Settlement, 'card'> {
  return cardOf({
    brand: payment.payment_method_id,
    last4: payment.card?.last_four_digits,
    authorizationCode: payment.authorization_code,
    funding: FUNDING[payment.payment_type_id ?? ''],
  });
}
