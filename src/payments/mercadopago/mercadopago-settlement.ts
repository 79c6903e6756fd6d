import { z } from 'zod';
import { minorOf } from '../money';
import type { PaidWith, Settlement } from '../payment-provider';

/*
 * What Mercado Pago reports of a payment's money (what the buyer paid, the fees, what reaches
 * the seller and when, the installments), read for the payment's status and its Settlement.
 */

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
  /** Each fee on the payment: its `type`, `amount` and `fee_payer` (collector or payer). */
  fee_details: z
    .array(
      z.looseObject({
        type: z.string().nullish(),
        amount: z.number().nullish(),
        fee_payer: z.string().nullish().catch(undefined),
      }),
    )
    .nullish(),
  /** "Number of installments selected." */
  installments: z.number().int().positive().nullish().catch(undefined),
  /** When the money is available to the collector: an ISO date-time with Mercado Pago's offset. */
  money_release_date: z.string().nullish().catch(undefined),
};

/** A payment as far as its money goes. */
type PaymentMoney = z.output<z.ZodObject<typeof moneyFields>>;

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
 * What Mercado Pago reports of a settled payment's money, for the ERP's payment record; each
 * figure absent when the payment does not say it. From "Get payment" (GET /v1/payments/{id}; the
 * search returns the same objects):
 * https://www.mercadopago.com.br/developers/en/reference/online-payments/checkout-pro-preferences/get-payment/get
 *
 * - providerFee: the `fee_details` of type `mercadopago_fee` ("Cost for using Mercado Pago") the
 *   collector pays (`fee_payer` collector, "The seller absorbs the cost"). Not `application_fee`
 *   ("Marketplace comision for the service": the vendor's `marketplace_fee`), nor `financing_fee`
 *   paid by the payer (the buyer's interest, told as `interest`).
 * - net: `transaction_details.net_received_amount` ("Net amount received"): what reaches the
 *   seller; of a marketplace's payment, Mercado Pago takes its commission first and the
 *   marketplace's from what remains (Split payments, "Integrate checkout"):
 *   https://www.mercadopago.com.br/developers/en/docs/split-payments/integration-configuration/integrate-marketplace
 * - releaseDate: `money_release_date`, "Date on which the payment is settled and the money is made
 *   available in the Mercado Pago account of the Collector" (see `releaseDateOf`).
 * - installments: `installments`, "Number of installments selected" (see `installmentsOf`).
 * - pixE2e: never. Mercado Pago's payment reference documents no Pix end-to-end id:
 *   `point_of_interaction.transaction_data` has the QR code (`qr_code`, `qr_code_base64`) and
 *   `ticket_url`, `transaction_details` no identifier of the Pix. Its SDKs' types also carry
 *   `transaction_data.transaction_id` and `bank_transfer_id`, which no reference says is the
 *   end-to-end id: neither is taken for one.
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
  };
  return Object.keys(settlement).length > 0 ? settlement : undefined;
}

/**
 * The day of `money_release_date`, its calendar date as Mercado Pago wrote it: the payment's
 * date-times carry Mercado Pago's own offset (`2018-03-07T10:07:15.000-04:00` in its payments),
 * and the date is taken as written, not converted to UTC or to Brasília time, either of which
 * could move it to the next day. Anything but a date-time of a real day is left out.
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
