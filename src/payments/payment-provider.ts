import type { ChargeLine, Money } from './money';
import { PAYMENT_METHODS, type PaymentMethod } from './payment-offer';

/** What the connector asks a provider to collect. */
export interface CheckoutRequest {
  checkoutId: string;
  serviceId: number;
  amount: Money;
  lines: ChargeLine[];
  /** A one-line description shown by the provider, e.g. "Pedido 1004". */
  description: string;
  /** Where the customer lands after paying, and after giving up. */
  returnUrl: string;
  cancelUrl: string;
  /**
   * When the checkout was opened: the same on every attempt, so an adapter can make a retry the
   * same request (Stripe refuses an Idempotency-Key again with other parameters).
   */
  createdAt: Date;
  expiresAt: Date;
  /**
   * The vendor's fee on this payment (a connected shop's account: Mercado Pago's
   * `marketplace_fee`, ...); absent when none is taken.
   */
  vendorFee?: Money;
}

export interface CreatedCheckout {
  providerRef: string;
  url: string;
}

/** The provider's truth about a payment. */
export type PaymentState =
  | 'pending'
  | 'processing'
  | 'paid'
  | 'failed'
  | 'canceled'
  | 'expired'
  | 'refunded'
  /** The buyer disputed the payment with the card's issuer (a chargeback), or it was lost. */
  | 'charged_back';

/**
 * How a payment was made, as its provider reports it: one of the methods a shop may offer
 * (PAYMENT_METHODS: card, Pix, boleto).
 */
export type PaidWith = PaymentMethod;

/** Whether `value` names a way of paying: a provider's word, or a stored record's field. */
export function isPaidWith(value: unknown): value is PaidWith {
  return (PAYMENT_METHODS as readonly unknown[]).includes(value);
}

export interface PaymentStatus {
  state: PaymentState;
  /** The provider's payment id, sent to the platform with finish. */
  transactionId?: string;
  /** A short, customer-safe reason for failed or canceled payments. */
  reason?: string;
  /** What the provider collected, when it says; a paid status must match the checkout's amount. */
  amount?: Money;
  /** Of `amount`, what the provider reports as interest the buyer paid (card installments). */
  interest?: Money;
  /** How the customer paid, when the provider says (absent otherwise: never a guess). */
  method?: PaidWith;
  /** The money of a paid (or since refunded) payment as the provider reports it. */
  settlement?: Settlement;
  /**
   * What this read says happened, as an event id in the provider's hints' terms (an API Pix
   * Pix's end-to-end id and its returns), for a provider whose webhooks prove no origin: the
   * webhook event kept as handled is this one, never the body's. Absent when nothing happened yet.
   */
  eventId?: string;
}

/**
 * What a provider reports of a payment's money, for the ERP's payment record (docs/payments-to-the-erp.md):
 * each figure absent when the provider does not say it, never a guess.
 */
export interface Settlement {
  /** The provider's own fee on the payment (the vendor's fee, if any, is not in it). */
  providerFee?: Money;
  /** What reaches the shop: what the buyer paid less the provider's fee and the vendor's. */
  net?: Money;
  /** The day the net is available to the shop, `YYYY-MM-DD` (the provider's own date). */
  releaseDate?: string;
  /** The installments the buyer chose (a card); 1 for a Pix or a boleto. */
  installments?: number;
  /** A Pix's end-to-end id (`E` and 31 characters), when the provider tells it. */
  pixE2e?: string;
}

/**
 * What a verified event says of the provider's checkout itself, for a provider that has no read
 * of its checkouts: it was closed there (cancelled in the provider's panel, or ended by
 * the provider's clock), with a customer-safe reason. Its payments still decide: see
 * `withCheckoutClosed`.
 */
export interface CheckoutClosed {
  state: 'expired' | 'canceled';
  reason: string;
}

/** A verified webhook's word about one payment (a hint; the status is read from the provider). */
export type SingleHint =
  | { ignore: string }
  | { providerRef: string; eventId: string; closed?: CheckoutClosed }
  /** A provider that names our checkout itself (its own reference field). */
  | { checkoutId: string; eventId: string; closed?: CheckoutClosed };

/** A verified webhook: about one payment, or (an API Pix webhook) several. */
export type WebhookHint = SingleHint | { batch: SingleHint[] };

export interface WebhookInput {
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  rawBody: Buffer;
}

/** A webhook's header (its first value), or undefined when it has none. */
export function webhookHeader(input: WebhookInput, name: string): string | undefined {
  const value = input.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** One sweep of the payments a provider received: what it found, and how to mark it done. */
export interface ReceivedSweep {
  payments: Array<{ providerRef: string; eventId: string; receivedAt?: string }>;
  /** The end of the window swept. */
  until: Date;
  /**
   * Marks the window handled through `through`: `until`, or (a payment whose handling failed)
   * just before the first that failed, so the next sweep lists it again.
   */
  done(through: Date): Promise<void>;
}

/** Which payment speaks for a checkout, of the statuses of all its payments, first to last. */
const TELLING_ORDER: readonly PaymentState[] = [
  'paid',
  'processing',
  'charged_back',
  'refunded',
  'expired',
];

/**
 * The status of a checkout from those of its payments (a customer may try several: a refused
 * card, then a Pix): a paid one wins, then one under way, then what happened to a paid one
 * afterwards, then one that can no longer be paid; refused attempts alone leave it pending
 * (payable until its expiry closes it).
 */
export function checkoutStatusOf(payments: readonly PaymentStatus[]): PaymentStatus {
  for (const state of TELLING_ORDER) {
    const found = payments.find((status) => status.state === state);
    if (found) return found;
  }
  return { state: 'pending' };
}

/**
 * A checkout's status read from its payments, with what a verified event said of the checkout
 * itself: a checkout closed at the provider ends when none of its payments is paid, under way or
 * otherwise telling (its status pending); a paid payment wins, and one still payable (a Pix
 * waiting) keeps it open until the provider says it can no longer be paid.
 */
export function withCheckoutClosed(
  status: PaymentStatus,
  closed: CheckoutClosed | undefined,
): PaymentStatus {
  if (!closed || status.state !== 'pending') return status;
  return { ...status, state: closed.state, reason: closed.reason };
}

/**
 * One payment provider behind one interface. Adapters take their base URL, secrets and
 * clock as parameters, so tests can aim them at a loopback fake. Creating a checkout must be
 * idempotent by `checkoutId`.
 */
export interface PaymentProvider {
  readonly name: string;
  createCheckout(request: CheckoutRequest): Promise<CreatedCheckout>;
  getStatus(ref: { providerRef: string; checkoutId: string }): Promise<PaymentStatus>;
  /** Verifies a webhook; throws AppError UNAUTHORIZED when the signature is wrong. */
  parseWebhook(input: WebhookInput): Promise<WebhookHint>;
  /**
   * Whether its webhooks carry no proof of origin the connector can check (the API Pix's: the
   * PSP's mTLS ends at the proxy in front). A call then names payments to read, no more: what it
   * says is not kept (the event kept as handled is the read's, `PaymentStatus.eventId`), nor does
   * it close a checkout, and a call that acts on nothing counts toward the webhook limit like a
   * failure (src/checkout/handle-provider-webhook.ts).
   */
  readonly unsignedWebhooks?: boolean;
  /** Makes a superseded or expired checkout unpayable, where the provider allows it. */
  cancelCheckout?(ref: { providerRef: string; checkoutId: string }): Promise<void>;
  /**
   * Checks the account's keys with one harmless read, where the provider has one (adding a shop
   * checks them before storing anything): PROVIDER_REJECTED when they are refused.
   */
  verifyCredentials?(): Promise<void>;
  /**
   * What the provider does by itself with a payment made after its checkout closed, told in the
   * incident's story (a provider that refunds a late Pix on its own).
   */
  readonly latePaymentNote?: string;
  /**
   * Returns a payment made after its checkout closed to the payer, where the provider can and the
   * shop wants it (a late Pix's `devolucao`): resolves with what was done, for the incident's
   * story, or undefined when the payment is kept. Safe to call again for the same payment.
   */
  returnLatePayment?(ref: { providerRef: string; checkoutId: string }): Promise<string | undefined>;
  /**
   * The payments received since the last sweep, for a provider that can list them (the API
   * Pix's `GET /pix`): the reconciler's sweep for what no webhook told, each payment naming the
   * provider's checkout as a webhook's hint does. Undefined when no sweep is due yet.
   */
  receivedPayments?(): Promise<ReceivedSweep | undefined>;
  /**
   * Registers the connector's webhook with the provider, for a provider whose webhook is
   * registered by API (the API Pix's `PUT /webhook/{chave}`): resolves with the URL registered,
   * or undefined where the provider takes it only in its own portal.
   */
  registerWebhook?(): Promise<string | undefined>;
}
