import { isOpen, type CheckoutRecord } from '../checkout/checkout-record';
import { paidRecord, recordIdOf, type PaymentEvent } from '../checkout/payment-record';
import type { DeliveryProgress, RecordDelivery } from '../delivery/ports';
import { formatMoney } from '../html/page-layout';
import { SERVICE_STATUS_NAMES, statusCodeOf, textOf } from '../platform/schemas';
import { checkoutStory, type StoryMoney, type StoryStep } from './checkout-story';
import { asObject } from './service-summary';

/*
 * `connector checkout evidence`: what a shop needs to answer a MED claim or a chargeback, in one
 * place (CONTRACT "Money that stays"): the service as the platform described it, each payment with
 * the provider's ids, who paid, the story with its times, and the ERP's side. Built from what the
 * connector keeps and one read of the platform; it writes nothing.
 */

/** The platform's service, as the evidence tells it; `read: false` when it could not be read. */
export type ServiceEvidence =
  | {
      read: true;
      /** The ERP order linked to it (`internal_code`), null when none is. */
      erp_order: string | null;
      /** The customer as the platform sent it: its `client` (ERP code, and what else it holds). */
      customer: Record<string, string | null>;
      status: string | null;
    }
  | { read: false; reason: string };

export interface PaymentEvidence {
  /** The provider's payment id (the platform's finish carried it). */
  payment_id: string | null;
  pix_txid: string | null;
  pix_e2e: string | null;
  authorization_code: string | null;
  card: { brand: string | null; last4: string | null } | null;
  paid_at: string | null;
  /** The CNPJ of the institution that took it. */
  institution_cnpj: string | null;
}

export interface ErpRecordEvidence {
  event: PaymentEvent;
  record_id: string;
  /**
   * The sync queue's word (completed: the ERP acknowledged it), or `not kept` (its job trimmed
   * and no acknowledgement noted: never delivered, or by a release before this one noted it).
   */
  state: string;
  acknowledged_at: string | null;
  attempts: number | null;
  last_error: string | null;
}

export interface CheckoutEvidence {
  checkout_id: string;
  provider: string;
  state: string;
  outcome: string | null;
  method: string | null;
  installments: number | null;
  amount: StoryMoney | null;
  collected: StoryMoney | null;
  interest: StoryMoney | null;
  /** What the connector charged: the service's priced lines, as the checkout asked them. */
  items: Array<{ label: string; amount_minor: number }>;
  payment: PaymentEvidence;
  payer: { name: string | null; document: string | null } | null;
  incidents: Array<{ kind: string; at: string; natureza?: string; note?: string }>;
  /** Every step with its time: requested, URL sent, paid, finish delivered, ERP acknowledged. */
  steps: StoryStep[];
  erp_records: ErpRecordEvidence[];
  /** A part checkout of a plan: whose, and which part (its payment record's `plan`). */
  part_of: { checkout_id: string; part: string; split: number | null } | null;
}

export interface Evidence {
  shop: string;
  service_id: number;
  service: ServiceEvidence;
  checkouts: CheckoutEvidence[];
  /** Checkouts of the service whose record cannot be read (`checkout status --unreadable`). */
  unreadable: Array<{ checkout_id: string; problem: string }>;
}

/** The payment records the connector sent (or sends) the ERP for this checkout, by event. */
export function recordIdsOf(record: CheckoutRecord): Array<{ event: PaymentEvent; id: string }> {
  const paid =
    record.outcome === 'paid' || record.paidRecordQueued
      ? [
          {
            event: 'paid' as const,
            id: recordIdOf(record.checkoutId, 'paid', record.transactionId),
          },
        ]
      : [];
  const incidents = (record.incidents ?? []).map((incident) => ({
    event: incident.kind,
    id: recordIdOf(record.checkoutId, incident.kind, incident.transactionId),
  }));
  return [...paid, ...incidents];
}

/** Each payment record of the checkout, and where its delivery to the ERP stands. */
function erpRecordsOf(record: CheckoutRecord, deliveries: RecordDelivery[]): ErpRecordEvidence[] {
  return recordIdsOf(record).map(({ event, id }) => {
    const delivery = deliveries.find((d) => d.recordId === id);
    // Kept on the checkout by the worker that delivered it; the job, 7 days at most.
    const kept = record.erpAcknowledged?.[id];
    const finished = delivery?.state === 'completed' ? delivery.finishedAt : undefined;
    return {
      event,
      record_id: id,
      state: delivery?.state ?? (kept ? 'completed' : 'not kept'),
      acknowledged_at: kept ?? finished ?? null,
      attempts: delivery?.attempts ?? null,
      last_error: delivery?.lastError ?? null,
    };
  });
}

/** One checkout's evidence, from its record, its deliveries and its records' deliveries. */
export function checkoutEvidence(
  record: CheckoutRecord,
  deliveries: DeliveryProgress[],
  recordDeliveries: RecordDelivery[],
): CheckoutEvidence {
  const story = checkoutStory(record, deliveries);
  // The payment as the ERP's record tells it: its ids, card, payer and institution.
  const told = paidRecord(record, new Date(record.updatedAt));
  const erpRecords = erpRecordsOf(record, recordDeliveries);
  const acknowledged = erpRecords.flatMap((r) =>
    r.acknowledged_at
      ? [{ step: `ERP acknowledged ${r.event}`, at: r.acknowledged_at, note: r.record_id }]
      : [],
  );
  return {
    checkout_id: record.checkoutId,
    provider: record.provider,
    state: record.state,
    outcome: record.outcome ?? null,
    method: record.method ?? null,
    installments: record.settlement?.installments ?? null,
    amount: story.amount ?? null,
    collected: story.collected ?? null,
    interest: story.interest ?? null,
    items: (record.lines ?? []).map((line) => ({
      label: line.label,
      amount_minor: line.amountMinor,
    })),
    payment: {
      payment_id: told.provider_ids.payment,
      pix_txid: told.provider_ids.pix_txid,
      pix_e2e: told.provider_ids.pix_e2e,
      authorization_code: told.card?.authorization_code ?? null,
      card: told.card ? { brand: told.card.brand, last4: told.card.last4 } : null,
      paid_at: told.paid_at,
      institution_cnpj: told.nfe.CNPJ,
    },
    payer: told.payer,
    incidents: story.incidents.map(({ kind, at, natureza, note }) => ({
      kind,
      at,
      ...(natureza ? { natureza } : {}),
      ...(note ? { note } : {}),
    })),
    steps: [...story.steps, ...acknowledged].sort((a, b) =>
      (a.at ?? '\uffff').localeCompare(b.at ?? '\uffff'),
    ),
    erp_records: erpRecords,
    part_of: told.plan
      ? { checkout_id: told.plan.checkout_id, part: told.plan.part, split: told.plan.split }
      : null,
  };
}

/**
 * The platform's service as the evidence tells it: the ERP order, the customer (its `client`:
 * every field of a plain value, as sent), its status. Read as passed: odd data never fails.
 */
export function serviceEvidence(sent: unknown): ServiceEvidence {
  const raw = asObject(sent);
  const client = asObject(raw.client);
  const customer = Object.fromEntries(
    Object.entries(client).flatMap(([key, value]) =>
      value === null || ['string', 'number', 'boolean'].includes(typeof value)
        ? [[key, value === null ? null : String(value)]]
        : [],
    ),
  );
  const code = statusCodeOf(raw.status);
  return {
    read: true,
    erp_order: textOf(raw.internal_code) ?? null,
    customer,
    status: code === undefined ? null : `${code} ${SERVICE_STATUS_NAMES[code] ?? '(unknown code)'}`,
  };
}

const moneyText = (value: StoryMoney | null) =>
  value ? formatMoney(value.amount_minor, value.currency) : 'unknown';
const orNone = (value: string | null | undefined) => value ?? '-';

/** Where the checkout stands, in words: its outcome once reported, else its state. */
function nowText(c: CheckoutEvidence): string {
  if (c.state === 'reported' && c.outcome) return `${c.outcome}, reported to the platform`;
  return isOpen(c.state as CheckoutRecord['state']) ? `${c.state} (open)` : c.state;
}

/** The text form: the service, then each checkout, newest first. */
export function evidenceText(evidence: Evidence): string {
  const { service } = evidence;
  const head = [
    `service ${evidence.service_id}  (shop ${evidence.shop})`,
    ...(service.read
      ? [
          `  ERP order        ${orNone(service.erp_order)}`,
          `  status           ${orNone(service.status)}`,
          `  customer         ${
            Object.entries(service.customer)
              .map(([key, value]) => `${key} ${orNone(value)}`)
              .join(', ') || '-'
          }`,
        ]
      : [`  not read from the platform: ${service.reason}`]),
  ];
  const checkouts = evidence.checkouts.map((c) => {
    const { payment, payer } = c;
    const lines = [
      `checkout ${c.checkout_id}  ${c.provider}  ${moneyText(c.amount)}  ${nowText(c)}${c.part_of ? `  ${c.part_of.part}${c.part_of.split ? ` (${c.part_of.split} of 2)` : ''} of ${c.part_of.checkout_id}` : ''}`,
      ...c.items.map(
        (item) =>
          `  item             ${item.label}  ${formatMoney(item.amount_minor, c.amount?.currency ?? 'BRL')}`,
      ),
      `  paid with        ${orNone(c.method)}${c.installments ? `, ${c.installments} installment${c.installments === 1 ? '' : 's'}` : ''}${c.collected ? `, collected ${moneyText(c.collected)}` : ''}${c.interest ? ` (interest ${moneyText(c.interest)})` : ''}`,
      `  payment id       ${orNone(payment.payment_id)}`,
      `  Pix txid         ${orNone(payment.pix_txid)}`,
      `  Pix end-to-end   ${orNone(payment.pix_e2e)}`,
      `  card             ${payment.card ? `${orNone(payment.card.brand)} ending ${orNone(payment.card.last4)}` : '-'}`,
      `  authorization    ${orNone(payment.authorization_code)}`,
      `  paid at          ${orNone(payment.paid_at)}`,
      `  institution      ${payment.institution_cnpj ? `CNPJ ${payment.institution_cnpj}` : '-'}`,
      `  payer            ${payer ? `${orNone(payer.name)}, document ${orNone(payer.document)}` : '-'}`,
      '  story:',
      ...c.steps.map((step) =>
        `    ${step.step.padEnd(24)} ${(step.at ?? '').padEnd(24)}${step.note ? `  ${step.note}` : ''}`.trimEnd(),
      ),
      ...(c.erp_records.length > 0 ? ['  ERP records:'] : []),
      ...c.erp_records.map(
        (r) =>
          `    ${r.event.padEnd(12)} ${r.record_id}  ${r.state}${r.acknowledged_at ? ` ${r.acknowledged_at}` : ''}${r.last_error ? `  last error: ${r.last_error}` : ''}`,
      ),
    ];
    return lines.join('\n');
  });
  const unreadable = evidence.unreadable.map(
    (u) => `checkout ${u.checkout_id}  cannot be read: ${u.problem} (checkout status --unreadable)`,
  );
  return `${[head.join('\n'), ...checkouts, ...unreadable].join('\n\n')}\n`;
}
