import Stripe from 'stripe';
import { AppError } from '../../errors';
import {
  isPaidWith,
  type CheckoutRequest,
  type CreatedCheckout,
  type PaidWith,
  type PaymentProvider,
  type PaymentStatus,
  type RefundReason,
  type WebhookHint,
  type WebhookInput,
} from '../payment-provider';
import { idempotencyKey, sessionParams, type SessionSettings } from './stripe-session';
import { settledBy } from './stripe-settlement';
import { STRIPE_API } from './stripe-api';

export interface StripeSettings extends SessionSettings {
  secretKey: string;
  webhookSecret: string;
  /** The API's origin (its descriptor resolves it), e.g. a loopback fake; Stripe's when absent. */
  apiUrl?: string;
  timeoutMs?: number;
  clock?: () => Date;
}

/** The Checkout Session events that say something about a payment; others are acknowledged. */
const SESSION_EVENTS = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
]);

/** What happens to a paid payment afterwards: a refund, a dispute (see `hintOfCharge`). */
const AFTER_EVENTS = new Set(['charge.refunded', 'charge.dispute.created']);

/** What a status read expands: the intent, its charge and balance transaction, its method. */
const STATUS_EXPAND = [
  'payment_intent.latest_charge.balance_transaction',
  'payment_intent.payment_method',
];

/** The SDK's host, port and protocol for another API URL (the SDK has no base-URL option). */
export function hostOptions(apiUrl: string | undefined): Partial<Stripe.StripeConfig> {
  if (!apiUrl) return {};
  const url = new URL(apiUrl);
  return {
    host: url.hostname,
    port: url.port || (url.protocol === 'http:' ? 80 : 443),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
  };
}

/**
 * A Stripe error as an AppError: a retry helps for network, rate-limit and server errors only.
 * The message says whether Stripe answered and with what status, never what the answer said
 * nor how the connection failed (the host may not be Stripe's): that is the logged `cause`.
 */
export function asAppError(error: unknown, action: string): AppError {
  const stripeError = error instanceof Stripe.errors.StripeError ? error : undefined;
  const status = stripeError?.statusCode;
  const transient =
    !stripeError ||
    stripeError.type === 'StripeConnectionError' ||
    stripeError.type === 'StripeAPIError' ||
    stripeError.type === 'StripeRateLimitError' ||
    status === undefined ||
    status === 429 ||
    status >= 500;
  const detail = stripeError ? `${stripeError.type}: ${stripeError.message}` : String(error);
  const reached = status !== undefined && stripeError?.type !== 'StripeConnectionError';
  return new AppError(
    transient ? 'PROVIDER_UNAVAILABLE' : 'PROVIDER_REJECTED',
    reached
      ? `Stripe answered ${status} to ${action}.`
      : `Stripe could not be reached to ${action}.`,
    { upstreamStatus: status, cause: detail.slice(0, 300) },
  );
}

/** Stripe Checkout through the official SDK: one Checkout Session per checkout, the truth. */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  private readonly stripe: Stripe;
  private readonly clock: () => Date;

  constructor(private readonly settings: StripeSettings) {
    this.clock = settings.clock ?? (() => new Date());
    this.stripe = new Stripe(settings.secretKey, {
      // Retries live in the queues: the SDK makes one attempt.
      maxNetworkRetries: 0,
      timeout: settings.timeoutMs ?? 20_000,
      telemetry: false,
      ...hostOptions(settings.apiUrl),
    });
  }

  async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
    const params = sessionParams(request, this.settings, this.clock());
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create(params, {
        idempotencyKey: idempotencyKey(request.checkoutId, params),
        ...this.as,
      });
    } catch (error) {
      throw asAppError(error, 'create the Checkout Session');
    }
    if (!session.url) throw new AppError('PROVIDER_REJECTED', 'Stripe returned no session URL.');
    return { providerRef: session.id, url: session.url };
  }

  /** The request options of a connected account's calls (`Stripe-Account`), else none. */
  private get as(): Stripe.RequestOptions {
    return this.settings.stripeAccount ? { stripeAccount: this.settings.stripeAccount } : {};
  }

  async getStatus(ref: { providerRef: string }): Promise<PaymentStatus> {
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.retrieve(
        ref.providerRef,
        { expand: STATUS_EXPAND },
        this.as,
      );
    } catch (error) {
      throw asAppError(error, 'read the Checkout Session');
    }
    const status = sessionStatus(session);
    if (!status.settlement) return status;
    const institutionCnpj = await this.institutionCnpj();
    return institutionCnpj
      ? { ...status, settlement: { ...status.settlement, institutionCnpj } }
      : status;
  }

  /**
   * The session's payment given back, what is left of it (POST /v1/refunds with its
   * PaymentIntent), keyed by the payment (Idempotency-Key): a retry within
   * Stripe's 24 h is the same refund, and after it Stripe's `charge_already_refunded` means done.
   * None paid (or disputed: the dispute decides), nothing.
   */
  async refundPayment(
    ref: { providerRef: string; checkoutId: string },
    reason: RefundReason,
  ): Promise<string | undefined> {
    const status = await this.getStatus(ref);
    const { transactionId } = status;
    if ((status.state !== 'paid' && status.state !== 'refunded') || !transactionId) {
      return undefined;
    }
    try {
      const refund = await this.stripe.refunds.create(
        { payment_intent: transactionId, metadata: { checkout_id: ref.checkoutId, reason } },
        // Keyed by the payment: one is given back once, whatever asks it, whichever checkout.
        { idempotencyKey: `refund:${transactionId}`, ...this.as },
      );
      return `refund asked at Stripe (${refund.id})`;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'charge_already_refunded') {
        return `refunded at Stripe (${transactionId})`;
      }
      throw asAppError(error, 'refund the payment');
    }
  }

  /**
   * Stripe Brasil's CNPJ when the account that took the payment is Brazilian (its `country`,
   * read once: GET /v1/account, or the connected account's), else none: another country's
   * payments are another Stripe entity's. A failed read names none, and is tried again later.
   */
  private async institutionCnpj(): Promise<string | undefined> {
    this.country ??= this.accountCountry();
    const country = await this.country;
    if (country === undefined) this.country = undefined;
    return country === 'BR' ? STRIPE_API.institution?.cnpj : undefined;
  }

  private country: Promise<string | undefined> | undefined;

  private async accountCountry(): Promise<string | undefined> {
    const { stripeAccount } = this.settings;
    try {
      const account = stripeAccount
        ? await this.stripe.accounts.retrieve(stripeAccount)
        : await this.stripe.accounts.retrieveCurrent();
      return typeof account.country === 'string' ? account.country : undefined;
    } catch {
      return undefined;
    }
  }

  async parseWebhook(input: WebhookInput): Promise<WebhookHint> {
    const header = input.headers['stripe-signature'];
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(
        input.rawBody,
        Array.isArray(header) ? (header[0] ?? '') : (header ?? ''),
        this.settings.webhookSecret,
      );
    } catch {
      throw new AppError(
        'WEBHOOK_SIGNATURE_INVALID',
        'The Stripe-Signature does not verify (wrong secret, tampered body, or a stale timestamp).',
      );
    }
    if (AFTER_EVENTS.has(event.type)) return this.hintOfCharge(event);
    if (!SESSION_EVENTS.has(event.type)) return { ignore: `event ${event.type} is not used` };
    const session = event.data.object as { id?: unknown };
    if (typeof session.id !== 'string') return { ignore: 'event without a session id' };
    return { providerRef: session.id, eventId: event.id };
  }

  /** A refund's or a dispute's event: its PaymentIntent says which checkout it is about. */
  private async hintOfCharge(event: Stripe.Event): Promise<WebhookHint> {
    const intentId = (event.data.object as { payment_intent?: unknown }).payment_intent;
    if (typeof intentId !== 'string') return { ignore: `${event.type} without a payment intent` };
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.stripe.paymentIntents.retrieve(intentId, {}, this.as);
    } catch (error) {
      throw asAppError(error, 'read the PaymentIntent');
    }
    const checkoutId = intent.metadata?.checkout_id;
    if (!checkoutId) return { ignore: 'a payment of no checkout of the connector' };
    return { checkoutId, eventId: event.id };
  }

  /** GET /v1/balance: any secret or restricted key with read access may read it. */
  async verifyCredentials(): Promise<void> {
    try {
      await this.stripe.balance.retrieve({}, this.as);
    } catch (error) {
      throw asAppError(error, 'read the balance');
    }
  }

  async cancelCheckout(ref: { providerRef: string }): Promise<void> {
    try {
      const session = await this.stripe.checkout.sessions.retrieve(ref.providerRef, {}, this.as);
      if (session.status === 'open')
        await this.stripe.checkout.sessions.expire(ref.providerRef, {}, this.as);
    } catch (error) {
      throw asAppError(error, 'expire the Checkout Session');
    }
  }
}

/**
 * A paid session's status, or refunded (in full or in part) or disputed since: the charge's money
 * as Stripe reports it goes with each (`settlementOf`, stripe-settlement.ts).
 */
function paidStatus(
  session: Stripe.Checkout.Session,
  intent: Stripe.PaymentIntent | null,
  paid: Pick<PaymentStatus, 'transactionId' | 'amount' | 'method'>,
): PaymentStatus {
  const charge = typeof intent?.latest_charge === 'object' ? intent.latest_charge : null;
  const settled = { ...paid, ...settledBy(charge, session) };
  if (charge?.disputed) return { state: 'charged_back', reason: 'disputed at Stripe', ...settled };
  if (charge && charge.amount_refunded > 0) {
    const part = charge.refunded ? '' : ` (${charge.amount_refunded} of ${charge.amount})`;
    return { state: 'refunded', reason: `refunded at Stripe${part}`, ...settled };
  }
  return { state: 'paid', ...settled };
}

/**
 * The payment's state from its session: paid when Stripe says so; a completed session still
 * unpaid (Pix, boleto) is processing until its PaymentIntent settles, failed when it failed.
 */
export function sessionStatus(session: Stripe.Checkout.Session): PaymentStatus {
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  const transactionId =
    intent?.id ?? (typeof session.payment_intent === 'string' ? session.payment_intent : undefined);
  const method = methodOfIntent(intent);
  const paidWith = method ? { method } : {};
  if (session.payment_status === 'paid') {
    const amount =
      session.amount_total === null || !session.currency
        ? undefined
        : { amountMinor: session.amount_total, currency: session.currency.toUpperCase() };
    return paidStatus(session, intent, { transactionId, amount, ...paidWith });
  }
  if (session.status === 'expired') return { state: 'expired', reason: 'checkout expired' };
  if (session.status === 'complete') {
    if (intent?.status === 'canceled' || intent?.status === 'requires_payment_method') {
      return { state: 'failed', transactionId, reason: 'payment failed at Stripe', ...paidWith };
    }
    return { state: 'processing', transactionId, ...paidWith };
  }
  return { state: 'pending' };
}

/**
 * How a session's payment was made, from what the one read expands (docs.stripe.com/api): the
 * charge's `payment_method_details.type` (a charge made), else the PaymentIntent's
 * `payment_method` and its `type` (chosen, even while a Pix or boleto waits, before any charge
 * succeeds), else the intent's `payment_method_types` when it allows only one. Stripe names the
 * three methods as PAYMENT_METHODS does (card, pix, boleto); any other type is no method.
 */
function methodOfIntent(intent: Stripe.PaymentIntent | null): PaidWith | undefined {
  if (!intent) return undefined;
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const paymentMethod = typeof intent.payment_method === 'object' ? intent.payment_method : null;
  const types = intent.payment_method_types ?? [];
  const type =
    charge?.payment_method_details?.type ??
    paymentMethod?.type ??
    (types.length === 1 ? types[0] : undefined);
  return isPaidWith(type) ? type : undefined;
}
