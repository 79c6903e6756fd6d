import { randomBytes } from 'node:crypto';
import type { ChargeLine, Money } from '../payments/money';
import { isPaidWith, type PaidWith, type Settlement } from '../payments/payment-provider';
import { namedShop, shopOrEnv } from '../shop/shop-id';

export type { ChargeLine, Money, PaidWith, Settlement };
// A stored record's `method` field and its settlement's payer, card and time are read with these
// (store/ may not import payments/).
export { isPaidWith };
export { cardOf, paidAtOf, payerOf } from '../payments/payment-facts';

/**
 * The checkout state machine. A checkout is one attempt to collect payment for one service.
 *
 *   requested -> url_sent -> processing -> paid | declined | expired | failed -> reported
 *
 * Outcomes (paid, declined, expired, failed) are sticky: once one is recorded no other can
 * replace it. `reported` means the platform acknowledged the finish or cancel.
 */
export const CHECKOUT_STATES = [
  'requested',
  'url_sent',
  'processing',
  'paid',
  'declined',
  'expired',
  'failed',
  'reported',
] as const;
export type CheckoutState = (typeof CHECKOUT_STATES)[number];
export type CheckoutOutcome = 'paid' | 'declined' | 'expired' | 'failed';

const OUTCOMES: readonly CheckoutState[] = ['paid', 'declined', 'expired', 'failed'];
/** States in which the customer may still pay; the store's scripts are built from this list. */
export const OPEN_STATES: readonly CheckoutState[] = ['requested', 'url_sent', 'processing'];

export const NEXT_STATES: Readonly<Record<CheckoutState, readonly CheckoutState[]>> = {
  requested: ['url_sent', 'processing', ...OUTCOMES],
  url_sent: ['processing', ...OUTCOMES],
  processing: OUTCOMES,
  paid: ['reported'],
  declined: ['reported'],
  expired: ['reported'],
  failed: ['reported'],
  reported: [],
};

export function statesLeadingTo(to: CheckoutState): CheckoutState[] {
  return CHECKOUT_STATES.filter((from) => NEXT_STATES[from].includes(to));
}

export function isOpen(state: CheckoutState): boolean {
  return OPEN_STATES.includes(state);
}

export function isOutcome(state: CheckoutState): state is CheckoutOutcome {
  return OUTCOMES.includes(state);
}

export interface CheckoutRecord {
  checkoutId: string;
  /** The shop it belongs to; its id says the same (`shopOfCheckout`). */
  shop: string;
  serviceId: number;
  state: CheckoutState;
  /** The outcome, kept when the state moves on to `reported`. */
  outcome?: CheckoutOutcome;
  provider: string;
  providerRef?: string;
  url?: string;
  amount?: Money;
  lines?: ChargeLine[];
  transactionId?: string;
  reason?: string;
  /** What the provider collected for the paid outcome, when it said (interest included). */
  collected?: Money;
  /** Of `collected`, what the provider reports as the buyer's installment interest. */
  interest?: Money;
  /** The vendor's fee asked of the provider on this checkout (a connected shop's). */
  vendorFee?: Money;
  /**
   * How the customer paid (or is paying: a Pix or boleto under way), when the provider said: the
   * method of the status that last moved or updated the checkout; a later status without one
   * leaves it as it was.
   */
  method?: PaidWith;
  /** The paid outcome's money as the provider reported it (fees, net, release date, ids). */
  settlement?: Settlement;
  /** The trace of the request that opened it (a W3C traceparent), with tracing on. */
  trace?: string;
  /** The paid outcome's payment record is queued for the ERP (src/checkout/payment-record.ts). */
  paidRecordQueued?: boolean;
  /** When the ERP first acknowledged each of its payment records, by record id (ISO-8601). */
  erpAcknowledged?: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  /** How many times the platform asked for this checkout (repeats re-send the same URL). */
  requests?: number;
  /** When each state was first reached, ISO-8601: the checkout's story. */
  reachedAt?: Partial<Record<CheckoutState, string>>;
  /** A cancel not sent because this newer checkout of the service was paid. */
  cancelDroppedFor?: string;
  /** What the provider said after the outcome (refund, chargeback, late payment), oldest first. */
  incidents?: PaymentIncident[];
  /**
   * The platform's checkout of a shop with a plan (src/checkout/plan-checkout.ts): the order cut
   * into parts, paid on the connector's page, each payment a part checkout of its own. A
   * checkout without one (every checkout of the previous release) is a plan of one part, itself.
   */
  plan?: StoredPlan;
  /** A planned checkout's part checkouts, oldest first. */
  partCheckouts?: string[];
  /** When a planned checkout's expiry began giving back what was paid (before its cancel). */
  closing?: string;
  /** A part checkout's planned checkout: it alone reports to the platform. */
  parent?: string;
  /** Which part of its parent's plan a part checkout pays. */
  part?: PlanPartName;
  /** A part paid two ways: the first (the customer's amount) or the second (the rest). */
  split?: 1 | 2;
  /** A part checkout's plan as its payment record tells it: how many parts, the order's total. */
  planParts?: number;
  orderMinor?: number;
}

/** The parts a plan cuts an order into: all of it, or a deposit and its balance. */
export const PLAN_PART_NAMES = ['full', 'deposit', 'balance'] as const;
export type PlanPartName = (typeof PLAN_PART_NAMES)[number];

/** A plan as its checkout keeps it, fixed when the order was priced. */
export interface StoredPlan {
  /** When the platform hears the finish: once the first part is paid, or every part. */
  finishOn: 'deposit' | 'full';
  splitTender: boolean;
  parts: Array<{
    part: PlanPartName;
    amountMinor: number;
    /** Its share of the vendor's fee (plan-money.ts `cutAcross`). */
    vendorFeeMinor?: number;
    /** `YYYY-MM-DD`: the balance's. */
    dueDate?: string;
  }>;
}

/** The kinds of incident after an outcome (CONTRACT "Guarantees"). */
/**
 * `med_return`: a Pix returned through the Central Bank's MED (Mecanismo Especial de Devolução),
 * the payer's PSP having contested it; never a `refund`, which the shop asked for.
 * `refund_owed`: a part of a plan that must go back to the payer (the plan expired undone, or the
 * part was paid twice) and that the connector could not refund: the shop refunds it by hand.
 */
export const INCIDENT_KINDS = [
  'refund',
  'chargeback',
  'late_payment',
  'med_return',
  'refund_owed',
] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

/**
 * What a provider said about a checkout after its outcome was recorded: never a second finish or
 * a cancel, but a fact the shop must act on.
 */
export interface PaymentIncident {
  kind: IncidentKind;
  /** When the connector learned it. */
  at: string;
  /** The provider's payment it is about. */
  transactionId?: string;
  note?: string;
  /** A `med_return`'s `natureza` as the API Pix gives it (`MED_FRAUDE`, ...). */
  natureza?: string;
}

/**
 * A stored record that does not read as a checkout (a field that is not JSON, a state no version
 * wrote): data for a person to look at, never a reason for the rest to stop.
 */
export class UnreadableRecord {
  constructor(
    readonly checkoutId: string,
    /** What is wrong, naming the field and never echoing more than its state. */
    readonly problem: string,
  ) {}
}

/**
 * Checkout ids: `chk_`, the shop's id and `_` (none for the env shop), 24 hex digits. A checkout
 * names its shop, so a page, a return URL or a job finds the shop's data from the id alone.
 */
export const CHECKOUT_ID_PATTERN = /^chk_(?:([a-z0-9][a-z0-9-]{1,62})_)?[0-9a-f]{24}$/;

export function newCheckoutId(shop?: string): string {
  const random = randomBytes(12).toString('hex');
  const named = namedShop(shopOrEnv(shop));
  return named ? `chk_${named}_${random}` : `chk_${random}`;
}

/** Whether `value` is a checkout id (links, job data and queries are checked with it). */
export function isCheckoutId(value: unknown): value is string {
  return typeof value === 'string' && CHECKOUT_ID_PATTERN.test(value);
}

/** The shop a checkout id names (the env shop's ids name none); undefined for no checkout id. */
export function shopOfCheckout(checkoutId: string): string | undefined {
  const match = CHECKOUT_ID_PATTERN.exec(checkoutId);
  if (!match) return undefined;
  return shopOrEnv(match[1]);
}

/** The notification the platform acknowledged for a checkout, if it did (`reported`). */
export function acknowledgedNotification(record: CheckoutRecord): NotificationKind | undefined {
  return record.state === 'reported' && record.outcome
    ? notificationFor(record.outcome)
    : undefined;
}

/** The platform notification an outcome calls for. */
export type NotificationKind = 'finish' | 'cancel';

export function notificationFor(outcome: CheckoutOutcome): NotificationKind {
  return outcome === 'paid' ? 'finish' : 'cancel';
}
