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
  /** The same on every attempt: a retry is the same request (Stripe's Idempotency-Key). */
  createdAt: Date;
  expiresAt: Date;
  /** The vendor's fee on this payment (a connected shop's); absent when none is taken. */
  vendorFee?: Money;
  /**
   * The only ways it may be paid (a part of a plan, chosen on the connector's page), among the
   * shop's; absent: every method the shop offers.
   */
  methods?: readonly PaymentMethod[];
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

/** How a payment was made, as its provider reports it. */
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
  /** What the provider collected; a paid status must match the checkout's amount. */
  amount?: Money;
  /** Of `amount`, the interest the buyer paid (card installments). */
  interest?: Money;
  /** Absent when the provider does not say: never a guess. */
  method?: PaidWith;
  settlement?: Settlement;
  /**
   * For a provider whose webhooks prove no origin: what this read says happened, as an event id
   * in its hints' terms (a Pix's end-to-end id and its returns), kept as the event handled.
   */
  eventId?: string;
  /**
   * A return of this payment through the Central Bank's MED, under way or made (the API Pix's
   * devolução with a `natureza` MED_*): an incident of its own after a paid outcome.
   */
  medReturn?: MedReturn;
}

/**
 * Why the connector gives a payment back: it arrived after its checkout closed, it is a part of
 * a plan whose checkout expired undone, or it paid a part of a plan already paid.
 */
export type RefundReason = 'late_payment' | 'plan_expired' | 'paid_twice';

/**
 * What the payer's bank statement and the provider's receipt say of a refund, by its reason
 * (the API Pix's `descricao` takes up to 140 characters).
 */
export const REFUND_DESCRIPTIONS: Readonly<Record<RefundReason, string>> = {
  late_payment: 'Pagamento recebido após o prazo do pedido',
  plan_expired: 'Pedido não concluído no prazo: valor devolvido',
  paid_twice: 'Parte do pedido paga duas vezes: valor devolvido',
};

/** A MED return as the provider reports it. */
export interface MedReturn {
  /** `MED_OPERACIONAL`, `MED_FRAUDE` or `MED_PIX_AUTOMATICO`. */
  natureza: string;
  /** The provider's id of the return (the devolução's). */
  id: string;
  amount: Money;
  /** `EM_PROCESSAMENTO` (the money blocked) or `DEVOLVIDO`. */
  status: string;
}

/** A payment's money as its provider reports it, for the ERP; each figure absent when unsaid. */
export interface Settlement {
  /** The provider's own fee on the payment (the vendor's fee, if any, is not in it). */
  providerFee?: Money;
  /** What reaches the shop: what the buyer paid less the provider's fee and the vendor's. */
  net?: Money;
  /** The day the net is available to the shop, `YYYY-MM-DD`. */
  releaseDate?: string;
  /** 1 for a Pix or a boleto. */
  installments?: number;
  /** A Pix's end-to-end id (`E` and 31 characters). */
  pixE2e?: string;
  /** A Pix's txid: the charge's id at the receiver's PSP (the API Pix's `txid`). */
  pixTxid?: string;
  /** When the provider says the money moved (ISO-8601): approved, captured, received. */
  paidAt?: string;
  /** The payer as the provider reports them: the card's holder, the account that paid. */
  payer?: Payer;
  /** A card payment's details, as the provider reports them. */
  card?: CardDetails;
  /**
   * The CNPJ (14 digits) of the institution that took the payment (the acquirer, the payment
   * institution, the Pix PSP): the provider's public fact, for the NF-e's payment group.
   */
  institutionCnpj?: string;
}

/** The payer, each part absent when the provider does not say it. */
export interface Payer {
  name?: string;
  /** A CPF (11 digits) or a CNPJ (14), digits only when it reads as one; else as reported. */
  document?: string;
}

export interface CardDetails {
  /** The brand, in the connector's words (`cardBrandOf`): `visa`, `mastercard`, `elo`... */
  brand?: string;
  /** The card's last four digits. */
  last4?: string;
  /** The issuer's authorization code (the NF-e's `cAut`). */
  authorizationCode?: string;
  /** Credit, debit or prepaid: the NF-e's `tPag` tells credit (03) from debit (04). */
  funding?: CardFunding;
}

export const CARD_FUNDINGS = ['credit', 'debit', 'prepaid'] as const;
export type CardFunding = (typeof CARD_FUNDINGS)[number];

/**
 * A verified event's word that the provider's checkout was closed there (a provider with no read
 * of its checkouts), with a customer-safe reason; its payments still decide (`withCheckoutClosed`).
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

export function webhookHeader(input: WebhookInput, name: string): string | undefined {
  const value = input.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface ReceivedSweep {
  payments: Array<{ providerRef: string; eventId: string; receivedAt?: string }>;
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
 * A checkout's status from its payments' (a refused card, then a Pix): a paid one wins, then one
 * under way, then what befell a paid one, then one no longer payable; refused attempts alone
 * leave it pending.
 */
export function checkoutStatusOf(payments: readonly PaymentStatus[]): PaymentStatus {
  for (const state of TELLING_ORDER) {
    const found = payments.find((status) => status.state === state);
    if (found) return found;
  }
  return { state: 'pending' };
}

/** A checkout closed at the provider ends when its payments leave its status pending. */
export function withCheckoutClosed(
  status: PaymentStatus,
  closed: CheckoutClosed | undefined,
): PaymentStatus {
  if (!closed || status.state !== 'pending') return status;
  return { ...status, state: closed.state, reason: closed.reason };
}

/** One payment provider behind one interface; `createCheckout` is idempotent by `checkoutId`. */
export interface PaymentProvider {
  readonly name: string;
  createCheckout(request: CheckoutRequest): Promise<CreatedCheckout>;
  getStatus(ref: { providerRef: string; checkoutId: string }): Promise<PaymentStatus>;
  /** Verifies a webhook; throws AppError WEBHOOK_SIGNATURE_INVALID when the signature is wrong. */
  parseWebhook(input: WebhookInput): Promise<WebhookHint>;
  /**
   * Its webhooks carry no proof of origin (the API Pix's mTLS ends at the proxy): a call only
   * names payments to read, and one that acts on nothing counts toward the webhook limit.
   */
  readonly unsignedWebhooks?: boolean;
  /** Makes a superseded or expired checkout unpayable, where the provider allows it. */
  cancelCheckout?(ref: { providerRef: string; checkoutId: string }): Promise<void>;
  /** Checks the account's keys with one harmless read: PROVIDER_REJECTED when refused. */
  verifyCredentials?(): Promise<void>;
  /** What the provider does by itself with a late payment, told in the incident's story. */
  readonly latePaymentNote?: string;
  /**
   * Gives the checkout's paid payment back to the payer, in full, through the provider's API (a
   * Pix's `devolucao`, the sandbox's refund): what was asked, for the story, or undefined when
   * nothing was paid to give back. Safe to call again: a refund under way or made is not asked
   * twice. Absent: the provider cannot refund through the connector (the shop refunds at its
   * provider's dashboard).
   */
  refundPayment?(
    ref: { providerRef: string; checkoutId: string },
    reason: RefundReason,
  ): Promise<string | undefined>;
  /** A late payment is given back by itself (`refundPayment`): the shop's choice, where it can. */
  readonly returnsLatePayments?: boolean;
  /** The payments received since the last sweep (the API Pix's `GET /pix`); undefined: not due. */
  receivedPayments?(): Promise<ReceivedSweep | undefined>;
  /** Registers the connector's webhook by API (the API Pix's): the URL, or undefined. */
  registerWebhook?(): Promise<string | undefined>;
}
