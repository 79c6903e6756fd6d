import { createHash, randomBytes, randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { signNotification } from '../../src/payments/mercadopago/mercadopago-signature';
import { LoopbackFake } from './loopback-server';

/**
 * A small fake of Mercado Pago's API on loopback, written from its public reference for the
 * calls the connector makes: create a Checkout Pro preference (X-Idempotency-Key), read a
 * payment, search payments by external_reference, refund a payment in full or in part and read its
 * refunds (X-Idempotency-Key); Bearer-token auth; its error shape. Test
 * controls play the customer (a payment with a status) and the notifications, signed as
 * Mercado Pago signs them (x-signature over `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`).
 *
 * It also plays OAuth for marketplaces: the seller's consent at `/authorization` (auth.mercadopago
 * .com.br: client_id, response_type=code, platform_id=mp, state, redirect_uri, PKCE's
 * code_challenge with code_challenge_method=S256), `POST /oauth/token` (authorization_code and
 * refresh_token grants) and preferences made with a seller's token, with a `marketplace_fee`.
 * From developers/en/docs/security/oauth/{creation,renewal,management}, .../oauth/pkce,
 * developers/en/reference/oauth/_oauth_token/post and .../checkout-pro/how-tos/integrate-marketplace;
 * where they are silent it does what RFC 6749 and RFC 7636 say, and says so where it does.
 */
export interface FakePreference {
  id: string;
  init_point: string;
  items: Array<{ title: string; quantity: number; unit_price: number; currency_id: string }>;
  external_reference: string;
  back_urls: { success: string; pending: string; failure: string };
  auto_return?: string;
  notification_url?: string;
  expires?: boolean;
  expiration_date_from?: string;
  expiration_date_to?: string;
  payment_methods?: {
    excluded_payment_types?: Array<{ id: string }>;
    excluded_payment_methods?: Array<{ id: string }>;
    installments?: number;
  };
  /** The account the money goes to: the seller whose token made the preference. */
  collector_id?: number;
  /** The application whose OAuth token made it (absent for a seller's own token). */
  client_id?: string;
  /** `MP-MKT-<client_id>` for a marketplace's preference, `NONE` otherwise (the reference's). */
  marketplace?: string;
  /** The marketplace's fee, a fixed amount in reais; 0 by default. */
  marketplace_fee?: number;
}

export interface FakePayment {
  id: number;
  status: string;
  status_detail: string;
  external_reference: string;
  transaction_amount: number;
  currency_id: string;
  date_created: string;
  /** The kind of method (credit_card, debit_card, bank_transfer, ticket, account_money...). */
  payment_type_id: string;
  /** The method itself: visa, master, pix, bolbradesco... */
  payment_method_id: string;
  installments: number;
  /** When it was approved (Mercado Pago's `-04:00` date-time); null until then. */
  date_approved: string | null;
  /**
   * When the collector has the money: approval plus the fee's `releaseDays`, a date-time with
   * Mercado Pago's `-04:00` offset (as its payments show it); null until approved.
   */
  money_release_date: string | null;
  transaction_details: {
    total_paid_amount: number;
    installment_amount: number;
    /** The collector's: the price less Mercado Pago's fee and the marketplace's; 0 until approved. */
    net_received_amount: number;
  };
  fee_details: Array<{ type: string; amount: number; fee_payer: string }>;
  collector_id?: number;
  /** A marketplace's payment: its fee, also listed in fee_details as an `application_fee`. */
  marketplace_fee?: number;
  /**
   * The card of a card payment (credit_card, debit_card, prepaid_card), `{}` for another type: its
   * `first_six_digits`, `last_four_digits`, expiration, dates and `cardholder` (`name`,
   * `identification: { type, number }`), as "Get payment" reports them
   * (https://www.mercadopago.com.br/developers/en/reference/online-payments/checkout-pro-preferences/get-payment/get;
   * the fields as Mercado Pago's own SDK types its answer, `Card` and `Cardholder` in
   * github.com/mercadopago/sdk-nodejs src/clients/payment/commonTypes.ts).
   */
  card: FakeMercadoPagoCard | Record<string, never>;
  /**
   * The issuer's authorization code of an approved card payment (a string, `PaymentsResponse.
   * authorization_code` of the same SDK types); null for a Pix, a boleto, the account's balance, or
   * a card payment not approved (yet).
   */
  authorization_code: string | null;
  /**
   * Who paid: `id`, `email`, `first_name`, `last_name`, `identification: { type, number }` (the
   * SDK's `Payer`; CPF or CNPJ in Brazil).
   */
  payer: {
    id: string;
    email: string;
    first_name: string;
    last_name: string;
    identification: { type: string; number: string };
  };
  /**
   * What was refunded of it, in reais, and its refunds ("Get payment",
   * https://www.mercadopago.com.br/developers/en/reference/online-payments/checkout-pro-preferences/get-payment/get):
   * 0 and none until a refund.
   */
  transaction_amount_refunded: number;
  refunds: FakeMercadoPagoRefund[];
}

/**
 * A refund as "Create refund" answers it
 * (https://www.mercadopago.com.br/developers/en/reference/chargebacks/_payments_id_refunds/post),
 * its fields as Mercado Pago's own SDK types them (`RefundResponse` in github.com/mercadopago/
 * sdk-nodejs src/clients/paymentRefund/commonTypes.ts): the refunding `source` is the collector;
 * `refund_mode` `standard`, no `adjustment_amount`, the whole amount back to the payer, `approved`.
 */
export interface FakeMercadoPagoRefund {
  id: number;
  payment_id: number;
  amount: number;
  metadata: Record<string, unknown>;
  source: { id: string; name: string; type: 'collector' };
  date_created: string;
  unique_sequence_number: string | null;
  refund_mode: 'standard';
  adjustment_amount: number;
  status: 'approved';
  reason: string | null;
  amount_refunded_to_payer: number;
}

/** A refund Mercado Pago refuses: its status, error, message and cause's code. */
interface RefundRefusal {
  status: number;
  error: string;
  message: string;
  code?: number;
}

/** A payment's `card` (see FakePayment.card). */
export interface FakeMercadoPagoCard {
  id: string | null;
  first_six_digits: string;
  last_four_digits: string;
  expiration_month: number;
  expiration_year: number;
  date_created: string;
  date_last_updated: string;
  cardholder: { name: string; identification: { type: string; number: string } };
}

/**
 * The card a test pays with (`pay`'s `how.card`): by default Mercado Pago's Brazilian test card of
 * the payment's method (https://www.mercadopago.com.br/developers/pt/docs/your-integrations/test/cards:
 * Mastercard 5031 4332 1540 6351, Visa 4235 6477 2802 5682, American Express 3753 651535 56885,
 * Elo debit 5067 7667 8388 8311, all valid through 11/30), its holder the payer.
 */
export interface FakeCardGiven {
  lastFour?: string;
  firstSix?: string;
  holderName?: string;
  holderDocument?: { type: 'CPF' | 'CNPJ'; number: string };
}

/** The payer a test pays as (`pay`'s `how.payer`); Maria Souza, CPF 529.982.247-25 by default. */
export interface FakePayerGiven {
  firstName?: string;
  lastName?: string;
  email?: string;
  identification?: { type: 'CPF' | 'CNPJ'; number: string };
}

/** The test cards above: first six and last four digits of each method's. */
const TEST_CARDS: Record<string, { firstSix: string; lastFour: string }> = {
  master: { firstSix: '503143', lastFour: '6351' },
  visa: { firstSix: '423564', lastFour: '5682' },
  amex: { firstSix: '375365', lastFour: '6885' },
  debelo: { firstSix: '506776', lastFour: '8311' },
};

/** The kinds of payment that are paid by card (a payment's `payment_type_id`). */
const CARD_TYPES = new Set(['credit_card', 'debit_card', 'prepaid_card']);

/**
 * What Mercado Pago charges the collector on a payment of one type, and when the money is released:
 * a percent (in hundredths: 498 is 4.98%) of the price plus a fixed amount in centavos, the money
 * available `releaseDays` after approval.
 */
export interface FakeFee {
  percentHundredths: number;
  fixedMinor: number;
  releaseDays: number;
}

/**
 * The fee of each payment type when a test sets none, like Mercado Pago's Checkout Pro rates in
 * Brazil with the money at once: a card 4.98%, a Pix 0.99% (docs/payment-providers.md), a boleto
 * R$ 3,49, the account's balance as a card. Its API reference has no prices: these are the fake's
 * assumption, and a shop's rates and release days are its own choice at Mercado Pago anyway.
 */
const DEFAULT_FEES: Record<string, FakeFee> = {
  credit_card: { percentHundredths: 498, fixedMinor: 0, releaseDays: 0 },
  debit_card: { percentHundredths: 498, fixedMinor: 0, releaseDays: 0 },
  prepaid_card: { percentHundredths: 498, fixedMinor: 0, releaseDays: 0 },
  bank_transfer: { percentHundredths: 99, fixedMinor: 0, releaseDays: 0 },
  ticket: { percentHundredths: 0, fixedMinor: 349, releaseDays: 0 },
  account_money: { percentHundredths: 498, fixedMinor: 0, releaseDays: 0 },
};

/** The vendor's application at Mercado Pago (Your integrations): the OAuth client. */
export interface FakeApplication {
  /** The application's ID ("APP_ID"), digits. */
  clientId: string;
  clientSecret: string;
  /** The application's Redirect URL; set, redirect_uri must be exactly it, unset any http(s) URL. */
  redirectUri?: string;
}

/** A seller who linked their account to the application. */
export interface FakeSeller {
  userId: number;
  nickname: string;
  publicKey: string;
}

/** One call of `POST /oauth/token`: no secret, code or token of it is kept. */
export interface FakeTokenRequest {
  grantType: string;
  clientId: string;
  ok: boolean;
  /** The HTTP status answered; 0 when the connection was dropped. */
  status: number;
  error?: string;
  at: Date;
}

/**
 * A method of each payment type, where a test names none: one Mercado Pago's reference shows for
 * Brazil (a Mastercard, a Pix, a Bradesco boleto, the account's balance).
 */
const METHOD_OF_TYPE: Record<string, string> = {
  credit_card: 'master',
  // Brazil's debit cards are debvisa, debmaster, debelo...: the test debit card is an Elo.
  debit_card: 'debelo',
  bank_transfer: 'pix',
  ticket: 'bolbradesco',
  account_money: 'account_money',
};

/** The account of the fake's own access token (`GET /users/me`). */
const OWN_USER_ID = 1_234_567_890;
/** "The code received by the Redirect URL after authorization is valid for 10 minutes." */
const CODE_LIFETIME_MS = 10 * 60_000;
const SCOPE = 'offline_access read write';
/** The reference's message for every invalid_grant. */
const GRANT_REFUSED =
  'Error validating grant. Your authorization code or refresh token may be expired or it was already used.';

/** Who calls the API: a seller, by its own token or by the application's OAuth token. */
interface Caller {
  userId: number;
  clientId?: string;
}
interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state?: string;
  challenge: string;
  userId?: number;
}
interface Code extends AuthorizationRequest {
  userId: number;
  expiresAt: number;
  used: boolean;
}
interface Token {
  kind: 'access' | 'refresh';
  userId: number;
  clientId: string;
  expiresAt: number;
  valid: boolean;
  test: boolean;
  /** The code the chain of tokens began with. */
  family: string;
}
type Asked = { refused: string } | { redirect: string } | { request: string };

export class FakeMercadoPago extends LoopbackFake {
  readonly preferences = new Map<string, FakePreference>();
  readonly payments = new Map<number, FakePayment>();
  readonly requests: Array<{ method: string; path: string; idempotencyKey?: string }> = [];
  /** The marketplace's application; tests may replace it. */
  application: FakeApplication = {
    clientId: '1234567890123456',
    clientSecret: randomBytes(24).toString('base64url'),
  };
  /** Mercado Pago's time: codes and tokens expire by it; payments are approved and released by it. */
  clock: () => Date = () => new Date();
  /**
   * Mercado Pago's fee and release of each payment type (`payment_type_id`); a type not listed is
   * charged as a credit card. Tests may change them.
   */
  readonly fees: Record<string, FakeFee> = Object.fromEntries(
    Object.entries(DEFAULT_FEES).map(([type, fee]) => [type, { ...fee }]),
  );
  /** expires_in of the tokens it issues: 15552000 s, the reference's 180 days. */
  tokenLifetimeSeconds = 15_552_000;
  /** The seller signed in at Mercado Pago whom the consent page asks; unset, a new test seller. */
  signedInSeller: number | undefined;
  readonly sellers = new Map<number, FakeSeller>();
  readonly tokenRequests: FakeTokenRequest[] = [];
  private readonly idempotent = new Map<string, FakePreference>();
  private readonly preferenceOf = new Map<number, FakePreference>();
  private readonly pending = new Map<string, AuthorizationRequest>();
  private readonly codes = new Map<string, Code>();
  private readonly tokens = new Map<string, Token>();
  private readonly tokenFailures: Array<number | 'drop' | 'lose-answer'> = [];
  private nextPaymentId = 1_300_000_001;
  private nextRefundId = 1_800_000_001;
  /** A refund's answer by its X-Idempotency-Key (the seller's own). */
  private readonly idempotentRefunds = new Map<string, FakeMercadoPagoRefund>();
  private nextPayerId = 1_600_000_001;
  /** A card payment's authorization code, given when it is approved. */
  private readonly authorizations = new Map<number, string | null>();
  private nextUserId = 1_500_000_001;

  constructor(
    readonly accessToken = 'TEST-1234567890-fake-access-token',
    readonly webhookSecret = 'fake-webhook-secret-0123456789',
  ) {
    super();
  }

  protected buildApp(): express.Express {
    const app = express();
    app.use(express.json());
    // POST /oauth/token takes a form too, as the docs' curl sends it.
    app.use(express.urlencoded({ extended: false }));
    app.use((req, _res, next) => {
      this.requests.push({
        method: req.method,
        path: req.path,
        idempotencyKey: req.header('x-idempotency-key'),
      });
      next();
    });
    // auth.mercadopago.com.br/authorization: the seller's consent, then a redirect.
    app.get('/authorization', (req, res) => {
      const asked = this.authorize(req.query);
      if ('refused' in asked) return res.status(400).type('html').send(refusedPage(asked.refused));
      if ('redirect' in asked) return res.redirect(302, asked.redirect);
      return res.type('html').send(consentPage(this.application.clientId, asked.request));
    });
    app.post('/authorization/decision', (req, res) => {
      const form = (req.body ?? {}) as Record<string, unknown>;
      const location = this.decide(one(form.request) ?? '', form.decision === 'allow');
      if (!location) return res.status(400).type('html').send(refusedPage('pedido desconhecido'));
      return res.redirect(302, location);
    });
    app.post('/oauth/token', (req, res) => this.token(req, res));
    app.use((req, res, next) => {
      const caller = this.caller(req.header('authorization'));
      // An unknown, expired or revoked token alike.
      if (!caller) return mpError(res, 401, 'unauthorized', 'invalid access token');
      res.locals.caller = caller;
      next();
    });
    // https://www.mercadopago.com.br/developers/en/reference/online-payments/checkout-pro/users/get
    app.get('/users/me', (_req, res) => {
      const { userId } = callerOf(res);
      const nickname = this.sellers.get(userId)?.nickname ?? 'TESTFAKE';
      res.json({ id: userId, nickname, site_id: 'MLB', country_id: 'BR' });
    });
    app.post('/checkout/preferences', (req, res) => {
      const caller = callerOf(res);
      // A seller's key is its own: another seller's same key makes another preference.
      const header = req.header('x-idempotency-key');
      const key = header && `${caller.userId}:${header}`;
      const earlier = key ? this.idempotent.get(key) : undefined;
      if (earlier) return res.status(201).json(earlier);
      const body = req.body as Partial<FakePreference>;
      if (!body.items?.length) return mpError(res, 400, 'invalid_items', 'items needed');
      const marketplace = this.marketplaceOf(caller, body);
      if ('problem' in marketplace) return mpError(res, 400, 'bad_request', marketplace.problem);
      const id = `${caller.userId}-${randomUUID()}`;
      const preference = {
        ...body,
        ...marketplace,
        id,
        init_point: `${this.url}/checkout/v1/redirect?pref_id=${id}`,
        collector_id: caller.userId,
        ...(caller.clientId ? { client_id: caller.clientId } : {}),
      } as FakePreference;
      this.preferences.set(id, preference);
      if (key) this.idempotent.set(key, preference);
      return res.status(201).json(preference);
    });
    app.put('/checkout/preferences/:id', (req, res) => {
      const caller = callerOf(res);
      const preference = this.preferences.get(req.params.id);
      if (preference?.collector_id !== caller.userId) {
        return mpError(res, 404, 'not_found', 'preference not found');
      }
      const changed = { ...preference, ...(req.body as Partial<FakePreference>) };
      const marketplace = this.marketplaceOf(caller, changed);
      if ('problem' in marketplace) return mpError(res, 400, 'bad_request', marketplace.problem);
      Object.assign(preference, changed, marketplace);
      return res.json(preference);
    });
    app.get('/v1/payments/search', (req, res) => {
      const { userId } = callerOf(res);
      const reference = String(req.query.external_reference ?? '');
      const results = [...this.payments.values()]
        .filter((p) => p.external_reference === reference && p.collector_id === userId)
        .sort((a, b) => b.date_created.localeCompare(a.date_created) || b.id - a.id);
      res.json({ paging: { total: results.length, limit: 30, offset: 0 }, results });
    });
    app.get('/v1/payments/:id', (req, res) => {
      const payment = this.payments.get(Number(req.params.id));
      // Another seller's payment is as good as none.
      if (payment?.collector_id !== callerOf(res).userId) {
        return mpError(res, 404, 'not_found', 'Payment not found');
      }
      return res.json(payment);
    });
    // "Create refund"
    // (https://www.mercadopago.com.br/developers/en/reference/chargebacks/_payments_id_refunds/post):
    // no body or no `amount`, all that is left; an `amount`, that much. X-Idempotency-Key is
    // REQUIRED there (4292 "Header X-Idempotency-Key can't be null"); the same key (the seller's
    // own) for the same payment answers the refund it made, whatever the body (the reference says
    // nothing of a key reused for another payment: the fake takes it as another request).
    // Another seller's payment: 404 (2000).
    app.post('/v1/payments/:id/refunds', (req, res) => {
      const caller = callerOf(res);
      const header = req.header('x-idempotency-key');
      if (!header) {
        return mpError(res, 400, 'bad_request', "Header X-Idempotency-Key can't be null", 4292);
      }
      const key = `${caller.userId}:${req.params.id}:${header}`;
      const earlier = this.idempotentRefunds.get(key);
      if (earlier) return res.status(201).json(earlier);
      const payment = this.payments.get(Number(req.params.id));
      if (payment?.collector_id !== caller.userId) {
        return mpError(res, 404, 'not_found', 'Payment not found', 2000);
      }
      const body = (req.body ?? {}) as { amount?: unknown };
      const made = this.makeRefund(payment, body.amount);
      if ('error' in made) return mpError(res, made.status, made.error, made.message, made.code);
      this.idempotentRefunds.set(key, made);
      return res.status(201).json(made);
    });
    // "Get refunds list" (.../reference/chargebacks/_payments_id_refunds/get): every refund of it.
    app.get('/v1/payments/:id/refunds', (req, res) => {
      const payment = this.payments.get(Number(req.params.id));
      if (payment?.collector_id !== callerOf(res).userId) {
        return mpError(res, 404, 'not_found', 'Payment not found', 2000);
      }
      return res.json(payment.refunds);
    });
    // "Get specific refund" (.../reference/chargebacks/_payments_id_refunds_refund_id/get).
    app.get('/v1/payments/:id/refunds/:refundId', (req, res) => {
      const payment = this.payments.get(Number(req.params.id));
      if (payment?.collector_id !== callerOf(res).userId) {
        return mpError(res, 404, 'not_found', 'Payment not found', 2000);
      }
      const refund = payment.refunds.find((r) => r.id === Number(req.params.refundId));
      if (!refund) return mpError(res, 404, 'not_found', 'Refund not found', 2032);
      return res.json(refund);
    });
    app.use((_req, res) => mpError(res, 404, 'not_found', 'resource not found'));
    return app;
  }

  /**
   * The seller refunds a payment from Mercado Pago's panel: all that is left of it, or `amount`
   * (reais); the same refund "Create refund" makes. Throws what Mercado Pago would refuse.
   */
  refund(payment: FakePayment, amount?: number): FakeMercadoPagoRefund {
    const made = this.makeRefund(payment, amount);
    if ('error' in made) throw new Error(`Mercado Pago refuses the refund: ${made.message}`);
    return made;
  }

  /**
   * A refund of an approved payment, or Mercado Pago's refusal: an `amount` not a number (4041) or
   * not positive (4040); a payment not approved, a refunded one among them (2063, "The action
   * requested is not valid for the current payment state"); more than is left (the reference
   * names no error for it: the fake answers 400 bad_request, no cause code). Refunded in full, the
   * payment is `refunded` (`status_detail` `refunded`); in part it stays `approved`,
   * `partially_refunded` ("The payment has at least one partial refund",
   * https://www.mercadopago.com.br/developers/en/docs/checkout-api-payments/response-handling/collection-results).
   */
  private makeRefund(payment: FakePayment, amount: unknown): FakeMercadoPagoRefund | RefundRefusal {
    const refuse = (message: string, code?: number): RefundRefusal => ({
      status: 400,
      error: 'bad_request',
      message,
      code,
    });
    if (amount !== undefined && (typeof amount !== 'number' || !Number.isFinite(amount))) {
      return refuse('amount attribute must be numeric', 4041);
    }
    if (amount !== undefined && amount <= 0)
      return refuse('amount attribute must be positive', 4040);
    if (payment.status !== 'approved') {
      return refuse('The action requested is not valid for the current payment state', 2063);
    }
    const leftMinor =
      Math.round(payment.transaction_amount * 100) -
      Math.round(payment.transaction_amount_refunded * 100);
    const minor = amount === undefined ? leftMinor : Math.round(amount * 100);
    if (minor > leftMinor) {
      return refuse(
        `Invalid refund amount: ${(minor / 100).toFixed(2)} is more than the ${(leftMinor / 100).toFixed(2)} left to refund`,
      );
    }
    const source = this.sellers.get(payment.collector_id ?? OWN_USER_ID);
    const refund: FakeMercadoPagoRefund = {
      id: this.nextRefundId++,
      payment_id: payment.id,
      amount: minor / 100,
      metadata: {},
      source: {
        id: String(payment.collector_id ?? OWN_USER_ID),
        name: source?.nickname ?? 'TESTFAKE',
        type: 'collector',
      },
      date_created: mercadoPagoDate(this.clock()),
      unique_sequence_number: null,
      refund_mode: 'standard',
      adjustment_amount: 0,
      status: 'approved',
      reason: null,
      amount_refunded_to_payer: minor / 100,
    };
    payment.refunds.push(refund);
    const refundedMinor = Math.round(payment.transaction_amount_refunded * 100) + minor;
    payment.transaction_amount_refunded = refundedMinor / 100;
    const whole = minor === leftMinor;
    payment.status = whole ? 'refunded' : 'approved';
    payment.status_detail = whole ? 'refunded' : 'partially_refunded';
    return refund;
  }

  /** The variables that aim the connector at this fake. */
  env(): Record<string, string> {
    return {
      PAYMENT_PROVIDER: 'mercadopago',
      MERCADOPAGO_ACCESS_TOKEN: this.accessToken,
      MERCADOPAGO_WEBHOOK_SECRET: this.webhookSecret,
      MERCADOPAGO_API_URL: this.url,
      // A loopback fake is no official host: the deployment lists it (CONTRACT "Provider hosts").
      PROVIDER_API_ORIGINS: this.url,
    };
  }

  preferenceFor(checkoutId: string): FakePreference | undefined {
    return [...this.preferences.values()].find((p) => p.external_reference === checkoutId);
  }

  /** Whether the preference can still be paid (Checkout Pro refuses it after expiration_date_to). */
  payable(preference: FakePreference): boolean {
    return (
      !preference.expires ||
      !preference.expiration_date_to ||
      Date.parse(preference.expiration_date_to) > this.clock().getTime()
    );
  }

  /**
   * The customer pays a preference: a payment with this status (approved, pending, rejected...),
   * of a payment type (credit_card by default; bank_transfer is Pix, ticket a boleto) and method
   * (`paymentMethod`, or one of the type: master, debelo, pix, bolbradesco) in `installments`, with `interest` (reais) of financing on top when the buyer pays some (Mercado
   * Pago keeps `transaction_amount` the price, adds the financing to
   * `transaction_details.total_paid_amount`, and lists it as a `financing_fee`). Checkout Pro
   * offers only the types the preference does not exclude, and at most its `installments`.
   * A marketplace's payment carries its `marketplace_fee`, listed in fee_details as an
   * `application_fee` the collector pays (as Mercado Libre's orders docs show a payment).
   * An approved payment is settled at once (see `settle`); a pending one when `update` approves it.
   * `payer` is who pays (FakePayerGiven), `card` the card of a card payment (FakeCardGiven), and
   * `authorizationCode` the issuer's code (six random digits by default; null for none).
   */
  pay(
    preference: FakePreference,
    status: string,
    amount?: number,
    how: {
      paymentType?: string;
      paymentMethod?: string;
      installments?: number;
      interest?: number;
      card?: FakeCardGiven;
      authorizationCode?: string | null;
      payer?: FakePayerGiven;
    } = {},
  ): FakePayment {
    if (!this.payable(preference)) throw new Error('this preference has expired');
    const paymentType = how.paymentType ?? 'credit_card';
    const paymentMethod = how.paymentMethod ?? METHOD_OF_TYPE[paymentType];
    if (!paymentMethod) throw new Error(`name the payment method of a ${paymentType} payment`);
    const methods = preference.payment_methods;
    if (methods?.excluded_payment_types?.some((type) => type.id === paymentType)) {
      throw new Error(`${paymentType} is excluded`);
    }
    const installments = how.installments ?? 1;
    if (installments > (methods?.installments ?? 12)) {
      throw new Error(`at most ${methods?.installments} installments`);
    }
    const item = preference.items[0];
    const price = amount ?? (item ? item.unit_price * item.quantity : 0);
    const total = Math.round((price + (how.interest ?? 0)) * 100) / 100;
    const fee = preference.marketplace_fee ?? 0;
    const now = this.clock();
    const payer = {
      id: String(this.nextPayerId++),
      email: how.payer?.email ?? 'maria@example.com',
      first_name: how.payer?.firstName ?? 'Maria',
      last_name: how.payer?.lastName ?? 'Souza',
      identification: { ...(how.payer?.identification ?? { type: 'CPF', number: '52998224725' }) },
    };
    const byCard = CARD_TYPES.has(paymentType);
    const test = TEST_CARDS[paymentMethod] ?? TEST_CARDS.master!;
    const card: FakeMercadoPagoCard | Record<string, never> = byCard
      ? {
          id: null,
          first_six_digits: how.card?.firstSix ?? test.firstSix,
          last_four_digits: how.card?.lastFour ?? test.lastFour,
          expiration_month: 11,
          expiration_year: 2030,
          date_created: mercadoPagoDate(now),
          date_last_updated: mercadoPagoDate(now),
          cardholder: {
            name: how.card?.holderName ?? `${payer.first_name} ${payer.last_name}`.toUpperCase(),
            identification: { ...(how.card?.holderDocument ?? payer.identification) },
          },
        }
      : {};
    const payment: FakePayment = {
      id: this.nextPaymentId++,
      status,
      status_detail: status === 'approved' ? 'accredited' : status,
      external_reference: preference.external_reference,
      transaction_amount: price,
      currency_id: item?.currency_id ?? 'BRL',
      date_created: this.clock().toISOString(),
      payment_type_id: paymentType,
      payment_method_id: paymentMethod,
      installments,
      date_approved: null,
      money_release_date: null,
      transaction_details: {
        total_paid_amount: total,
        installment_amount: Math.round((total / installments) * 100) / 100,
        net_received_amount: 0,
      },
      fee_details: [
        ...(how.interest
          ? [{ type: 'financing_fee', amount: how.interest, fee_payer: 'payer' }]
          : []),
        ...(fee > 0 ? [{ type: 'application_fee', amount: fee, fee_payer: 'collector' }] : []),
      ],
      collector_id: preference.collector_id ?? OWN_USER_ID,
      ...(isMarketplace(preference) ? { marketplace_fee: fee } : {}),
      card,
      authorization_code: null,
      payer,
      transaction_amount_refunded: 0,
      refunds: [],
    };
    if (byCard) {
      this.authorizations.set(
        payment.id,
        how.authorizationCode === undefined ? sixDigits() : how.authorizationCode,
      );
    }
    if (status === 'approved') this.settle(payment);
    this.payments.set(payment.id, payment);
    this.preferenceOf.set(payment.id, preference);
    return payment;
  }

  /**
   * A payment's status changes (a Pix is approved, a payment refunded...). A payment approved now
   * is settled now; one refunded or charged back keeps what its settlement said. An approved
   * payment `refunded` is refunded as `refund` does it (its `refunds`, transaction_amount_refunded).
   */
  update(payment: FakePayment, status: string): FakePayment {
    // Refunded from the panel: the refund "Create refund" makes, of all that is left.
    if (status === 'refunded' && payment.status === 'approved') {
      this.refund(payment);
      return payment;
    }
    payment.status = status;
    if (status === 'approved') {
      payment.status_detail = 'accredited';
      this.settle(payment);
    }
    return payment;
  }

  /**
   * An approved payment's money, once, as Mercado Pago's "Get payment" reports it
   * (https://www.mercadopago.com.br/developers/en/reference/online-payments/checkout-pro-preferences/get-payment/get):
   * `date_approved`; a `mercadopago_fee` ("Cost for using Mercado Pago") in `fee_details`, paid by
   * the collector, of its type's `fees`; `transaction_details.net_received_amount`, the price less
   * that fee and the marketplace's `application_fee` (Split payments' "Integrate checkout": Mercado
   * Pago's commission is taken first, the marketplace's from what remains); `money_release_date`,
   * approval plus the fee's release days. The reference does not say on what the fee is taken: the
   * fake takes it on the price (`transaction_amount`), the buyer's financing not being the seller's
   * (Mercado Libre's payments docs show a payment's financing_fee outside its net_received_amount,
   * https://developers.mercadolibre.cl/en_us/payment-handling). In centavos: no float error.
   */
  private settle(payment: FakePayment): void {
    if (payment.date_approved) return;
    // The issuer authorizes a card payment when it is approved.
    payment.authorization_code = this.authorizations.get(payment.id) ?? null;
    const fee =
      this.fees[payment.payment_type_id] ?? this.fees.credit_card ?? DEFAULT_FEES.credit_card!;
    const priceMinor = Math.round(payment.transaction_amount * 100);
    const percentPart = Math.floor((priceMinor * fee.percentHundredths + 5_000) / 10_000);
    const feeMinor = Math.min(priceMinor, percentPart + fee.fixedMinor);
    const applicationMinor = payment.fee_details
      .filter((detail) => detail.type === 'application_fee')
      .reduce((sum, detail) => sum + Math.round(detail.amount * 100), 0);
    if (feeMinor > 0) {
      payment.fee_details.push({
        type: 'mercadopago_fee',
        amount: feeMinor / 100,
        fee_payer: 'collector',
      });
    }
    payment.transaction_details.net_received_amount =
      Math.max(0, priceMinor - feeMinor - applicationMinor) / 100;
    const approved = this.clock();
    payment.date_approved = mercadoPagoDate(approved);
    payment.money_release_date = mercadoPagoDate(
      new Date(approved.getTime() + fee.releaseDays * 86_400_000),
    );
  }

  /**
   * Posts a payment notification to the connector as Mercado Pago does: `?data.id=&type=payment`
   * and a JSON body, signed; options forge it. Returns the connector's answer.
   */
  async notify(
    endpoint: string,
    payment: { id: number | string },
    options: {
      secret?: string;
      ts?: string;
      requestId?: string;
      notificationId?: number;
      signedDataId?: string;
      type?: string;
    } = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const dataId = String(payment.id);
    const requestId = options.requestId ?? randomUUID();
    const ts = options.ts ?? String(Date.now());
    const type = options.type ?? 'payment';
    // A linked seller's notification names the seller; the fake's own account keeps its old id.
    const collector = this.payments.get(Number(payment.id))?.collector_id;
    const body = {
      id: options.notificationId ?? Number(`1${randomBytes(4).readUInt32BE()}`),
      action: 'payment.updated',
      api_version: 'v1',
      data: { id: dataId },
      date_created: new Date().toISOString(),
      live_mode: false,
      type,
      user_id: collector && this.sellers.has(collector) ? String(collector) : '123456789',
    };
    const signature = signNotification(options.secret ?? this.webhookSecret, {
      dataId: options.signedDataId ?? dataId,
      requestId,
      ts,
    });
    const response = await fetch(`${endpoint}?data.id=${encodeURIComponent(dataId)}&type=${type}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature': signature,
        'x-request-id': requestId,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /**
   * `notify` to the notification_url of the payment's preference, where Mercado Pago sends it; a
   * marketplace's notifications are signed with the application's secret (the fake's one).
   */
  notifyOf(
    payment: FakePayment,
    options: Parameters<FakeMercadoPago['notify']>[2] = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const endpoint = this.preferenceOf.get(payment.id)?.notification_url;
    if (!endpoint)
      throw new Error(`the preference of payment ${payment.id} has no notification_url`);
    return this.notify(endpoint, payment, options);
  }

  /**
   * The seller allows the application on the consent page of `authorizationUrl` (any host; its
   * path /authorization): returns the Location the browser is sent to, `redirect_uri?code=TG-…
   * &state=…`, or the error redirect of a request Mercado Pago refuses that way. Throws for one it
   * refuses without redirecting (unknown client_id, bad redirect_uri). `seller.userId` picks (or
   * makes) the seller; by default `signedInSeller`, else a new one.
   */
  approve(authorizationUrl: string, seller: { userId?: number } = {}): string {
    const asked = this.ask(authorizationUrl, seller.userId);
    return 'request' in asked ? this.decide(asked.request, true)! : asked.redirect;
  }

  /** The seller presses "Cancelar": `redirect_uri?error=access_denied&state=…`. */
  deny(authorizationUrl: string): string {
    const asked = this.ask(authorizationUrl);
    return 'request' in asked ? this.decide(asked.request, false)! : asked.redirect;
  }

  /**
   * The seller removes the application (or Mercado Pago revokes the authorization): "the deletion
   * of all tokens and temporal grants associated" — the API answers 401, a refresh invalid_grant.
   */
  revokeGrant(userId: number): void {
    for (const token of this.tokens.values()) if (token.userId === userId) token.valid = false;
    for (const code of this.codes.values()) if (code.userId === userId) code.expiresAt = 0;
  }

  /** The seller an OAuth access token was issued for (however it stands now). */
  sellerOf(accessToken: string): FakeSeller | undefined {
    const token = this.tokens.get(accessToken);
    return token?.kind === 'access' ? this.sellers.get(token.userId) : undefined;
  }

  /**
   * The next `POST /oauth/token` fails: with this HTTP status (500 by default; 429 is the
   * reference's local_rate_limited), `drop` (the connection is cut before Mercado Pago acts) or
   * `lose-answer` (Mercado Pago grants — a code is used, a refresh token spent — and the answer is
   * lost). Calls queue up.
   */
  failNextToken(answer: number | 'drop' | 'lose-answer' = 500): void {
    this.tokenFailures.push(answer);
  }

  private ask(authorizationUrl: string, userId?: number): Exclude<Asked, { refused: string }> {
    const url = new URL(authorizationUrl);
    if (url.pathname !== '/authorization') throw new Error(`not an authorization URL: ${url}`);
    const query: Record<string, unknown> = {};
    for (const name of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(name);
      query[name] = values.length === 1 ? values[0] : values;
    }
    const asked = this.authorize(query, userId);
    if ('refused' in asked)
      throw new Error(`Mercado Pago refuses to ask the seller: ${asked.refused}`);
    return asked;
  }

  /**
   * Checks an authorization request as RFC 6749 §4.1.2.1 says: an unknown client_id or a bad
   * redirect_uri is shown to the seller, never redirected to; other faults go back to
   * redirect_uri with `error` and the state. PKCE is on for the application (the docs: "Mercado
   * Pago will start requiring the code_challenge"), and only S256 (RFC 7636 §4.2; plain refused).
   */
  private authorize(query: Record<string, unknown>, userId = this.signedInSeller): Asked {
    const clientId = one(query.client_id);
    const redirectUri = one(query.redirect_uri);
    const state = one(query.state);
    if (clientId !== this.application.clientId) return { refused: 'client_id desconhecido' };
    if (!redirectUri || !/^https?:\/\//.test(redirectUri) || !URL.canParse(redirectUri)) {
      return { refused: 'redirect_uri inválida' };
    }
    // "The call will receive an error response if the redirect_uri does not exactly match".
    const registered = this.application.redirectUri;
    if (registered !== undefined && redirectUri !== registered) {
      return { refused: 'redirect_uri não é a Redirect URL da aplicação' };
    }
    const back = (error: string, description: string) => ({
      redirect: withParams(redirectUri, { error, error_description: description, state }),
    });
    const responseType = one(query.response_type);
    if (responseType === undefined) return back('invalid_request', 'response_type is required');
    if (responseType !== 'code') return back('unsupported_response_type', 'only code');
    const challenge = one(query.code_challenge);
    if (!challenge) return back('invalid_request', 'code challenge required');
    // An absent method is plain (RFC 7636 §4.3), which this application does not take.
    if (one(query.code_challenge_method) !== 'S256') {
      return back('invalid_request', 'transform algorithm not supported');
    }
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return back('invalid_request', 'code_challenge is not a BASE64URL(SHA256) value');
    }
    const request = randomBytes(12).toString('hex');
    this.pending.set(request, { clientId, redirectUri, state, challenge, userId });
    return { request };
  }

  /** The seller's answer on the consent page: the redirect, with a code or access_denied. */
  private decide(request: string, allow: boolean): string | undefined {
    const asked = this.pending.get(request);
    if (!asked) return undefined;
    this.pending.delete(request);
    if (!allow)
      return withParams(asked.redirectUri, { error: 'access_denied', state: asked.state });
    const { userId } = this.sellerFor(asked.userId);
    // A code like the docs' TG-60357f5d0cd06d000740646d-643464554.
    const code = `TG-${randomBytes(12).toString('hex')}-${userId}`;
    const expiresAt = this.clock().getTime() + CODE_LIFETIME_MS;
    this.codes.set(code, { ...asked, userId, expiresAt, used: false });
    return withParams(asked.redirectUri, { code, state: asked.state });
  }

  /**
   * `POST /oauth/token`, its parameters in the body (JSON or a form; the docs: "Remember not to
   * send any parameters inside Query Params"). Every refusal is a 400 with the reference's
   * errors: invalid_client, invalid_request, invalid_grant, unsupported_grant_type.
   */
  private token(req: Request, res: Response): void {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const grantType = one(body.grant_type) ?? '';
    const clientId = one(body.client_id) ?? '';
    const record = (status: number, error?: string) =>
      this.tokenRequests.push({
        grantType,
        clientId,
        ok: status === 200,
        status,
        error,
        at: this.clock(),
      });
    const failure = this.tokenFailures.shift();
    if (failure === 'drop') {
      record(0, 'dropped');
      req.socket.destroy();
      return;
    }
    if (typeof failure === 'number') {
      record(failure, 'injected');
      const error = failure === 429 ? 'local_rate_limited' : 'internal_server_error';
      return mpError(res, failure, error, 'injected failure');
    }
    const refuse = (error: string, message: string) => {
      record(400, error);
      mpError(res, 400, error, message);
    };
    const application = this.application;
    // RFC 6749 §5.2: no or wrong client authentication is invalid_client.
    if (clientId !== application.clientId || one(body.client_secret) !== application.clientSecret) {
      return refuse('invalid_client', 'invalid client_id or client_secret');
    }
    const now = this.clock().getTime();
    let grant: { userId: number; family: string; test: boolean };
    if (grantType === 'authorization_code') {
      const code = one(body.code);
      const redirectUri = one(body.redirect_uri);
      const verifier = one(body.code_verifier);
      if (!code || !redirectUri || !verifier) {
        return refuse('invalid_request', 'code, redirect_uri and code_verifier are required');
      }
      const issued = this.codes.get(code);
      if (issued?.clientId !== clientId) return refuse('invalid_grant', GRANT_REFUSED);
      if (issued.used) {
        // RFC 6749 §4.1.2: a code used twice revokes the tokens it gave.
        for (const token of this.tokens.values()) if (token.family === code) token.valid = false;
        return refuse('invalid_grant', GRANT_REFUSED);
      }
      // Single use, whatever the outcome (the docs: "may be expired or it was already used").
      issued.used = true;
      // RFC 6749 §4.1.3: the same redirect_uri; RFC 7636 §4.6: BASE64URL(SHA256(verifier)).
      const verified =
        createHash('sha256').update(verifier).digest('base64url') === issued.challenge;
      if (now >= issued.expiresAt || issued.redirectUri !== redirectUri || !verified) {
        return refuse('invalid_grant', GRANT_REFUSED);
      }
      grant = { userId: issued.userId, family: code, test: truthy(body.test_token) };
    } else if (grantType === 'refresh_token') {
      const refresh = one(body.refresh_token);
      if (!refresh) return refuse('invalid_request', 'refresh_token is required');
      const held = this.tokens.get(refresh);
      if (held?.kind !== 'refresh' || held.clientId !== clientId || !this.live(held)) {
        return refuse('invalid_grant', GRANT_REFUSED);
      }
      // "The refresh_token can only be used once … After a refresh_token is used it will become
      // invalid." The access token it came with keeps its own expiry (the docs are silent).
      held.valid = false;
      grant = held;
    } else if (!grantType) {
      return refuse('invalid_request', 'grant_type is required');
    } else {
      // client_credentials is documented too; this fake plays only the seller's grants.
      return refuse(
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token',
      );
    }
    const answer = this.issue(clientId, grant);
    if (failure === 'lose-answer') {
      record(0, 'answer lost');
      req.socket.destroy();
      return;
    }
    record(200);
    res.json(answer);
  }

  /**
   * A new access token and refresh token for the seller, as the reference's answer shows them:
   * APP_USR-<client_id>-<MMddHH>-<hash>-<user_id> (TEST- with test_token), TG-…-<user_id>.
   * The refresh token lives as long as the access token: "Your sellers' data that you received
   * lasts 180 days. After that, you need to request the seller's authorization again."
   */
  private issue(clientId: string, grant: { userId: number; family: string; test: boolean }) {
    const { userId, family, test } = grant;
    const seller = this.sellerFor(userId);
    const created = this.clock();
    const expiresAt = created.getTime() + this.tokenLifetimeSeconds * 1000;
    const prefix = test ? 'TEST' : 'APP_USR';
    const stamp = [created.getUTCMonth() + 1, created.getUTCDate(), created.getUTCHours()]
      .map((n) => String(n).padStart(2, '0'))
      .join('');
    const accessToken = `${prefix}-${clientId}-${stamp}-${randomBytes(16).toString('hex')}-${userId}`;
    const refreshToken = `TG-${randomBytes(12).toString('hex')}-${userId}`;
    const token = { userId, clientId, expiresAt, valid: true, test, family };
    this.tokens.set(accessToken, { kind: 'access', ...token });
    this.tokens.set(refreshToken, { kind: 'refresh', ...token });
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: this.tokenLifetimeSeconds,
      scope: SCOPE,
      user_id: userId,
      refresh_token: refreshToken,
      public_key: seller.publicKey.replace(/^APP_USR/, prefix),
      live_mode: !test,
    };
  }

  /**
   * The seller's access tokens stop working now, as if their time were up, while the refresh
   * token still renews them: the connector's 401 → renew → retry path without a moved clock.
   */
  lapseAccessTokens(userId: number): void {
    for (const token of this.tokens.values())
      if (token.kind === 'access' && token.userId === userId) token.valid = false;
  }

  /**
   * Every access token of the seller is refused with 401, even the ones issued after (while its
   * refresh token still renews): a provider that keeps refusing, whatever the connector does.
   */
  refuseAccessTokensOf(userId: number): void {
    this.refused.add(userId);
  }

  private readonly refused = new Set<number>();

  private live(token: Token): boolean {
    return token.valid && token.expiresAt > this.clock().getTime();
  }

  private caller(authorization: string | undefined): Caller | undefined {
    const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (bearer === undefined) return undefined;
    if (bearer === this.accessToken) return { userId: OWN_USER_ID };
    const token = this.tokens.get(bearer);
    if (token?.kind !== 'access' || !this.live(token) || this.refused.has(token.userId))
      return undefined;
    return { userId: token.userId, clientId: token.clientId };
  }

  /**
   * A preference's `marketplace` and `marketplace_fee`, or why Mercado Pago refuses them. The
   * reference: marketplace is "NONE" by default; "as the marketplace is associated to the
   * Application ID, the marketplace credentials must correspond to the credentials used to create
   * the preference", shown as MP-MKT-<client_id>; marketplace_fee "is a fixed amount and its
   * default value is 0 … can only be sent if a valid marketplace has been defined as well,
   * otherwise the request will fail". So a fee needs an OAuth token (only they make a marketplace
   * here). Not negative and not above the items' total: the docs are silent; the fake refuses them.
   */
  private marketplaceOf(
    caller: Caller,
    body: Partial<FakePreference>,
  ): { marketplace: string; marketplace_fee: number } | { problem: string } {
    const own = caller.clientId && `MP-MKT-${caller.clientId}`;
    const marketplace = body.marketplace ?? own ?? 'NONE';
    if (marketplace !== 'NONE' && marketplace !== own) {
      return { problem: 'marketplace does not match the credentials' };
    }
    const fee = body.marketplace_fee ?? 0;
    if (typeof fee !== 'number' || !Number.isFinite(fee) || fee < 0) {
      return { problem: 'marketplace_fee must be a number, 0 or more' };
    }
    if (fee > 0 && marketplace === 'NONE') {
      return { problem: 'marketplace_fee can only be sent with a valid marketplace' };
    }
    const total = (body.items ?? []).reduce((sum, i) => sum + i.unit_price * i.quantity, 0);
    if (fee > total) return { problem: 'marketplace_fee is more than the amount' };
    return { marketplace, marketplace_fee: fee };
  }

  private sellerFor(userId = this.nextUserId++): FakeSeller {
    let seller = this.sellers.get(userId);
    if (!seller) {
      seller = { userId, nickname: `TESTSELLER${userId}`, publicKey: `APP_USR-${randomUUID()}` };
      this.sellers.set(userId, seller);
    }
    return seller;
  }
}

/**
 * A date-time as Mercado Pago writes a payment's dates: its own `-04:00` offset, as in the payments
 * of api.mercadopago.com that Mercado Libre's docs show (`"money_release_date":
 * "2018-03-07T10:07:15.000-04:00"`, https://developers.mercadolibre.com.gt/es_ar/manejo-de-pagos).
 */
function mercadoPagoDate(date: Date): string {
  return `${new Date(date.getTime() - 4 * 3_600_000).toISOString().replace('Z', '')}-04:00`;
}

/** An issuer's authorization code: six digits. */
function sixDigits(): string {
  return String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0');
}

/** Mercado Pago's error; `code` the `cause`'s code where the reference names one. */
function mpError(
  res: Response,
  status: number,
  error: string,
  message: string,
  code?: number,
): void {
  const cause = code === undefined ? [] : [{ code, description: message, data: null }];
  res.status(status).json({ message, error, status, cause });
}

function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

function isMarketplace(preference: FakePreference): boolean {
  return preference.marketplace !== undefined && preference.marketplace !== 'NONE';
}

/** A parameter given once (RFC 6749 §3.1: none may be repeated). */
function one(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true';
}

/** redirect_uri with these parameters added; its own query stays (RFC 6749 §3.1.2). */
function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.toString();
}

/** The seller's consent: one form, "Permitir" or "Cancelar". */
function consentPage(clientId: string, request: string): string {
  return page(
    'Autorizar aplicação',
    `<p>A aplicação ${escapeHtml(clientId)} quer acessar sua conta do Mercado Pago ` +
      `(${SCOPE}).</p>` +
      '<form method="post" action="/authorization/decision">' +
      `<input type="hidden" name="request" value="${escapeHtml(request)}">` +
      '<button type="submit" name="decision" value="allow">Permitir</button> ' +
      '<button type="submit" name="decision" value="deny">Cancelar</button></form>',
  );
}

function refusedPage(reason: string): string {
  return page('Não foi possível autorizar', `<p>${escapeHtml(reason)}</p>`);
}

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${title}</title>` +
    `</head><body><h1>${title}</h1>${body}</body></html>`
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
