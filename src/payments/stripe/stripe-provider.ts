import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { AppError } from '../../errors';
import {
  isPaidWith,
  type CheckoutRequest,
  type CreatedCheckout,
  type PaidWith,
  type PaymentProvider,
  type PaymentStatus,
  type Settlement,
  type WebhookHint,
  type WebhookInput,
} from '../payment-provider';
import type { PaymentOptions } from '../payment-offer';
import { feeTaken } from '../vendor-fee';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** The API's origin (its descriptor resolves it), e.g. a loopback fake; Stripe's when absent. */
  apiUrl?: string;
  /**
   * Stripe's own payment method types (STRIPE_PAYMENT_METHODS, kept from before PAYMENT_METHODS):
   * when set, they are sent as they are, instead of `payment`'s methods.
   */
  paymentMethods?: string[];
  /** How the customer may pay: its methods become Stripe's types (card, pix, boleto). */
  payment?: PaymentOptions;
  /**
   * A connected account of the vendor's platform (Stripe Connect, `acct_...`): every call is made
   * as it (`Stripe-Account`), its payments direct charges that may carry the vendor's fee.
   */
  stripeAccount?: string;
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

/**
 * The events of what happens to a paid payment afterwards (a refund, a dispute): their object is
 * a charge or a dispute, which names its PaymentIntent; the PaymentIntent's metadata names the
 * checkout.
 */
const AFTER_EVENTS = new Set(['charge.refunded', 'charge.dispute.created']);

/** Stripe keeps a session open between 30 minutes and 24 hours from its creation. */
const STRIPE_MIN_OPEN_S = 30 * 60;
const STRIPE_MAX_OPEN_S = 24 * 3600;
/** How far an expiry must be within Stripe's bounds, for the request's way there. */
const MARGIN_S = 60;
/**
 * The bounds a session's expiry is put within, from the time it is reckoned from: wider than
 * Stripe's least, so that a retry some minutes later can still repeat the same request.
 */
const EARLIEST_S = 60 * 60;
const LATEST_S = STRIPE_MAX_OPEN_S - 10 * 60;
/** A late request's expiry is reckoned from its time rounded up to this step (see below). */
const LATE_STEP_S = 10 * 60;

/** The checkout's own expiry, put within `latestS` and an hour of `fromS`. */
function expiryFrom(fromS: number, wantedS: number, latestS = LATEST_S): number {
  return Math.min(fromS + latestS, Math.max(fromS + EARLIEST_S, wantedS));
}

/**
 * A checkout's session expiry, the same on every attempt while it can be: reckoned from the
 * checkout's creation, as long as a first request with it would still be taken (30 minutes to 24
 * hours from now, with a margin). Later than that, from the attempt's own time rounded up to 10
 * minutes, so that retries close together still send one request; kept 10 minutes more inside
 * Stripe's 24 hours, which the rounding may use up.
 */
function sessionExpiry(createdAt: Date, expiresAt: Date, now: Date): number {
  const nowS = Math.floor(now.getTime() / 1000);
  const wantedS = Math.floor(expiresAt.getTime() / 1000);
  const fixed = expiryFrom(Math.floor(createdAt.getTime() / 1000), wantedS);
  if (
    fixed >= nowS + STRIPE_MIN_OPEN_S + MARGIN_S &&
    fixed <= nowS + STRIPE_MAX_OPEN_S - MARGIN_S
  ) {
    return fixed;
  }
  return expiryFrom(Math.ceil(nowS / LATE_STEP_S) * LATE_STEP_S, wantedS, LATEST_S - LATE_STEP_S);
}

/**
 * The Idempotency-Key of a session's request: the checkout, and a digest of the parameters.
 * Stripe answers a key it has seen with its first answer when the parameters are the same, and
 * refuses it (`idempotency_error`) when they are not. A retry after an attempt whose answer was
 * lost (a worker stopped before it was recorded) sends the same request, and gets that session
 * back. A request that differs (the service priced again, the shop's methods changed, an expiry
 * reckoned later, an attempt made by an earlier release) is a request of its own, and gets a
 * session of its own: the earlier one's URL was never recorded, so no customer saw it.
 */
function idempotencyKey(checkoutId: string, params: Stripe.Checkout.SessionCreateParams): string {
  const digest = createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 32);
  return `checkout:${checkoutId}:${digest}`;
}

/**
 * What a status read expands (docs.stripe.com/api/expanding_objects: a path expands every object
 * along it): the intent, its charge and the charge's balance transaction (`settlementOf`), and the
 * intent's payment method (`methodOfIntent`). Three levels deep, within Stripe's four.
 */
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

/**
 * Stripe Checkout through the official SDK: one Checkout Session per checkout, created under an
 * idempotency key naming the checkout and its request (`idempotencyKey`), read back as the truth
 * about the payment.
 */
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
    const params = this.sessionParams(request);
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

  /** The Checkout Session a checkout asks for: made from the checkout alone, and the shop's settings. */
  private sessionParams(request: CheckoutRequest): Stripe.Checkout.SessionCreateParams {
    const metadata = { checkout_id: request.checkoutId, service_id: String(request.serviceId) };
    const methods = this.methodTypes();
    return {
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: request.amount.currency.toLowerCase(),
            unit_amount: request.amount.amountMinor,
            product_data: {
              name: request.description,
              description: request.lines
                .map((line) => line.label)
                .join('; ')
                .slice(0, 500),
            },
          },
        },
      ],
      client_reference_id: request.checkoutId,
      metadata,
      payment_intent_data: { metadata, ...this.applicationFee(request) },
      success_url: request.returnUrl,
      cancel_url: request.cancelUrl,
      expires_at: sessionExpiry(request.createdAt, request.expiresAt, this.clock()),
      // A filter on the methods Stripe finds eligible (the API's current form of the list).
      ...(methods
        ? {
            allowed_payment_method_types:
              methods as Stripe.Checkout.SessionCreateParams.AllowedPaymentMethodType[],
          }
        : {}),
    };
  }

  /** The request options of a connected account's calls (`Stripe-Account`), else none. */
  private get as(): Stripe.RequestOptions {
    return this.settings.stripeAccount ? { stripeAccount: this.settings.stripeAccount } : {};
  }

  /** The vendor's fee on a connected account's direct charge (`application_fee_amount`). */
  private applicationFee(request: CheckoutRequest): { application_fee_amount?: number } {
    const fee = feeTaken(
      request.vendorFee,
      this.settings.stripeAccount !== undefined,
      "Stripe takes the vendor's fee only on a connected account's direct charge.",
    );
    return fee === 0 ? {} : { application_fee_amount: fee };
  }

  /** The types a session allows: Stripe's own list when given, else the shop's methods. */
  private methodTypes(): string[] | undefined {
    if (this.settings.paymentMethods?.length) return this.settings.paymentMethods;
    // Stripe names the three methods as we do: card, pix, boleto.
    return this.settings.payment?.methods;
  }

  async getStatus(ref: { providerRef: string }): Promise<PaymentStatus> {
    let session: Stripe.Checkout.Session;
    try {
      // The intent, its charge (and its money) and its payment method in the one read.
      session = await this.stripe.checkout.sessions.retrieve(
        ref.providerRef,
        { expand: STATUS_EXPAND },
        this.as,
      );
    } catch (error) {
      throw asAppError(error, 'read the Checkout Session');
    }
    return sessionStatus(session);
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
 * The payment's state from its session: paid when Stripe says so; a completed session still
 * unpaid (Pix, boleto) is processing until its PaymentIntent settles, failed when it failed.
 */
export function sessionStatus(session: Stripe.Checkout.Session): PaymentStatus {
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  const transactionId =
    intent?.id ?? (typeof session.payment_intent === 'string' ? session.payment_intent : undefined);
  // How the payment was made, when Stripe says.
  const method = methodOfIntent(intent);
  const paidWith = method ? { method } : {};
  const amount =
    session.amount_total === null || !session.currency
      ? undefined
      : { amountMinor: session.amount_total, currency: session.currency.toUpperCase() };
  if (session.payment_status === 'paid') {
    // Afterwards, its charge may be disputed or refunded (in full or in part): the charge's money
    // as Stripe reports it goes with each (`settlementOf`).
    const charge = typeof intent?.latest_charge === 'object' ? intent.latest_charge : null;
    const settled = settledBy(charge, session.currency);
    if (charge?.disputed) {
      return {
        state: 'charged_back',
        transactionId,
        amount,
        reason: 'disputed at Stripe',
        ...paidWith,
        ...settled,
      };
    }
    if (charge && charge.amount_refunded > 0) {
      const part = charge.refunded ? '' : ` (${charge.amount_refunded} of ${charge.amount})`;
      const reason = `refunded at Stripe${part}`;
      return { state: 'refunded', transactionId, amount, reason, ...paidWith, ...settled };
    }
    return { state: 'paid', transactionId, amount, ...paidWith, ...settled };
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

/** `{ settlement }` of a paid charge when Stripe reports any of it, else nothing. */
function settledBy(
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
