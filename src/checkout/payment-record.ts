import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Money } from '../payments/money';
import type { Settlement } from '../payments/payment-provider';
import { serviceIdSchema } from '../shop/service-id';
import { SHOP_ID_PATTERN } from '../shop/shop-id';
import {
  CHECKOUT_ID_PATTERN,
  INCIDENT_KINDS,
  isPaidWith,
  PLAN_PART_NAMES,
  type CheckoutRecord,
  type PaidWith,
  type PaymentIncident,
} from './checkout-record';
import { tBandOf, tPagOf } from './nfe-payment';

/*
 * The payment record the ERP receives (docs/payments-to-the-erp.md): when a checkout is paid and
 * at each incident after it, what an accountant needs to write the invoice and the receipt, in
 * centavos, a figure the provider does not report being null. Built from the checkout's record
 * (the order, the interest, the vendor's fee asked, the method) and what the provider reported
 * (`Settlement`).
 */

/** What a record is about: the payment, or an incident after the outcome. */
export const PAYMENT_EVENTS = ['paid', ...INCIDENT_KINDS] as const;
export type PaymentEvent = (typeof PAYMENT_EVENTS)[number];

const centavos = z.number().int().nullable();

/** The record's layout; docs/payments-to-the-erp.md says what each version added. */
export const PAYMENT_RECORD_VERSION = 2;

/**
 * The record, as the ERP receives it (JSON, snake_case as the services) and as its job carries
 * it: the keys in this order are the order on the wire.
 */
export const paymentRecordSchema = z.object({
  /**
   * 2 since the invoice's fields (`paid_at`, `payer`, `card`, `pix_txid`, `nfe`). A record the
   * previous release queued (no version), delivered by this one, says 1, those fields null: the
   * ERP tells "queued before the upgrade" from "the provider does not say".
   */
  schema_version: z.union([z.literal(1), z.literal(PAYMENT_RECORD_VERSION)]).default(1),
  event: z.enum(PAYMENT_EVENTS),
  /** The same for every delivery of one event: the ERP dedupes on it. */
  record_id: z.string().regex(/^pay_[0-9a-f]{32}$/, 'not a record id'),
  shop: z.string().regex(SHOP_ID_PATTERN, 'not a shop id'),
  service_id: serviceIdSchema,
  checkout_id: z.string().regex(CHECKOUT_ID_PATTERN, 'not a checkout id'),
  provider: z.string().max(40),
  method: z.custom<PaidWith>(isPaidWith, 'not a payment method').nullable(),
  installments: z.number().int().positive().nullable(),
  amounts: z.object({
    /** The order's price, as the checkout asked it. */
    order: centavos,
    /** The buyer's installment interest, on top of the order. */
    interest: centavos,
    /** What the buyer paid: the order and the interest. */
    paid: centavos,
    provider_fee: centavos,
    /** The vendor's fee (a connected shop's; 0 when none was asked). */
    vendor_fee: centavos,
    /** What reaches the shop. */
    net: centavos,
  }),
  currency: z.string().nullable(),
  /** The day the net is available to the shop, `YYYY-MM-DD`. */
  release_date: z.string().nullable(),
  provider_ids: z.object({
    payment: z.string().nullable(),
    pix_e2e: z.string().nullable(),
    pix_txid: z.string().nullable().default(null),
  }),
  /**
   * When the provider says the money moved: ISO-8601, or a day `YYYY-MM-DD` where the provider
   * gives only the day (Asaas).
   */
  paid_at: z.string().nullable().default(null),
  /** The payer as the provider reports them; null when it reports neither. */
  payer: z
    .object({ name: z.string().nullable(), document: z.string().nullable() })
    .nullable()
    .default(null),
  /** A card payment's card; null for another method, or a card the provider told nothing of. */
  card: z
    .object({
      brand: z.string().nullable(),
      last4: z.string().nullable(),
      authorization_code: z.string().nullable(),
    })
    .nullable()
    .default(null),
  /** The NF-e's payment group, ready to copy (src/checkout/nfe-payment.ts). */
  nfe: z
    .object({
      tPag: z.string().nullable(),
      tBand: z.string().nullable(),
      cAut: z.string().nullable(),
      CNPJ: z.string().nullable(),
    })
    .default({ tPag: null, tBand: null, cAut: null, CNPJ: null }),
  /**
   * A part of a plan (paid on the connector's page): which part, which of its two payments where
   * it was split, how many parts the plan has, the whole order's total and the platform's
   * checkout; null for a checkout paid at once.
   */
  plan: z
    .object({
      part: z.enum(PLAN_PART_NAMES),
      split: z.union([z.literal(1), z.literal(2)]).nullable(),
      parts: z.number().int().positive().nullable(),
      order_total: centavos,
      checkout_id: z.string().regex(CHECKOUT_ID_PATTERN, 'not a checkout id'),
    })
    .nullable()
    .default(null),
  /** When the connector learned it (ISO-8601). */
  occurred_at: z.string(),
  /** An incident's note: what the provider said, what was done (a late Pix returned). */
  note: z.string().optional(),
});
export type PaymentRecord = z.output<typeof paymentRecordSchema>;
type PaymentAmounts = PaymentRecord['amounts'];

/**
 * A record's id: the checkout, the event and the provider's payment, hashed, so the same event
 * found twice (a duplicate webhook, the job's retry, a replay) has the same id, and another has
 * another.
 */
export function recordIdOf(
  checkoutId: string,
  event: PaymentEvent,
  transactionId: string | undefined,
): string {
  const digest = createHash('sha256')
    .update(`${checkoutId}\n${event}\n${transactionId ?? ''}`)
    .digest('hex');
  return `pay_${digest.slice(0, 32)}`;
}

const minor = (money: Money | undefined): number | null => money?.amountMinor ?? null;

/** A Pix or a boleto is one payment; a card's installments are the provider's word. */
function installmentsOf(method: PaidWith | undefined, settlement: Settlement | undefined) {
  if (settlement?.installments !== undefined) return settlement.installments;
  return method === 'pix' || method === 'boleto' ? 1 : null;
}

function amountsOf(
  record: CheckoutRecord,
  paid: { collected?: Money; interest?: Money },
  settlement: Settlement | undefined,
): PaymentAmounts {
  const collected = minor(paid.collected);
  return {
    order: minor(record.amount),
    // Told only with what was collected: a provider that reports the payment's amount reports
    // its interest (none when it names none; the amount rule held the rest to the order).
    interest: collected === null ? null : (minor(paid.interest) ?? 0),
    paid: collected,
    provider_fee: minor(settlement?.providerFee),
    vendor_fee: minor(record.vendorFee) ?? 0,
    net: minor(settlement?.net),
  };
}

function recordOf(
  record: CheckoutRecord,
  event: PaymentEvent,
  facts: {
    transactionId?: string;
    method?: PaidWith;
    collected?: Money;
    interest?: Money;
    settlement?: Settlement;
    occurredAt: string;
    note?: string;
  },
): PaymentRecord {
  const { settlement } = facts;
  const card = facts.method === 'card' ? settlement?.card : undefined;
  return {
    schema_version: PAYMENT_RECORD_VERSION,
    event,
    record_id: recordIdOf(record.checkoutId, event, facts.transactionId),
    shop: record.shop,
    service_id: record.serviceId,
    checkout_id: record.checkoutId,
    provider: record.provider,
    method: facts.method ?? null,
    installments: installmentsOf(facts.method, settlement),
    amounts: amountsOf(record, facts, settlement),
    currency: record.amount?.currency ?? facts.collected?.currency ?? null,
    release_date: settlement?.releaseDate ?? null,
    provider_ids: {
      payment: facts.transactionId ?? null,
      pix_e2e: settlement?.pixE2e ?? null,
      pix_txid: settlement?.pixTxid ?? null,
    },
    paid_at: settlement?.paidAt ?? null,
    payer: settlement?.payer
      ? { name: settlement.payer.name ?? null, document: settlement.payer.document ?? null }
      : null,
    card: card
      ? {
          brand: card.brand ?? null,
          last4: card.last4 ?? null,
          authorization_code: card.authorizationCode ?? null,
        }
      : null,
    nfe: {
      tPag: tPagOf(facts.method, card),
      tBand: tBandOf(card),
      cAut: card?.authorizationCode ?? null,
      CNPJ: settlement?.institutionCnpj ?? null,
    },
    plan: planOf(record),
    occurred_at: facts.occurredAt,
    ...(facts.note ? { note: facts.note } : {}),
  };
}

/** A part checkout's place in its plan, for the record; null for any other checkout. */
function planOf(record: CheckoutRecord): PaymentRecord['plan'] {
  if (!record.parent || !record.part) return null;
  return {
    part: record.part,
    split: record.split ?? null,
    parts: record.planParts ?? null,
    order_total: record.orderMinor ?? null,
    checkout_id: record.parent,
  };
}

/** The record of a paid checkout, from its record once the outcome is written. */
export function paidRecord(record: CheckoutRecord, now: Date): PaymentRecord {
  return recordOf(record, 'paid', {
    transactionId: record.transactionId,
    method: record.method,
    collected: record.collected,
    interest: record.interest,
    settlement: record.settlement,
    occurredAt: record.reachedAt?.paid ?? now.toISOString(),
  });
}

/**
 * The record of an incident: the payment it is about as the provider reports it now (a refund's
 * payment, with its fee and net as they stand), the order and the vendor's fee from the checkout.
 */
export function incidentRecord(
  record: CheckoutRecord,
  incident: PaymentIncident,
  status: {
    amount?: Money;
    interest?: Money;
    method?: PaidWith;
    settlement?: Settlement;
  },
): PaymentRecord {
  // A refund or a chargeback is of the paid payment: what the provider no longer says of it is
  // what it said when it was paid. A late payment is another payment: its own figures only.
  const paid = incident.kind === 'late_payment' ? undefined : record;
  return recordOf(record, incident.kind, {
    transactionId: incident.transactionId,
    method: status.method ?? paid?.method,
    collected: status.amount ?? paid?.collected,
    interest: status.amount ? status.interest : paid?.interest,
    // Field by field: what the provider no longer tells (a payer whose read failed) is what it
    // told when the payment was made.
    settlement: paid?.settlement ? { ...paid.settlement, ...status.settlement } : status.settlement,
    occurredAt: incident.at,
    ...(incident.note ? { note: incident.note } : {}),
  });
}
