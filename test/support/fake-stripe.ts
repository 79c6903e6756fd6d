import { randomBytes } from 'node:crypto';
import express, { type Response } from 'express';
import Stripe from 'stripe';
import { LoopbackFake } from './loopback-server';

/**
 * A small fake of Stripe's API on loopback, written from Stripe's public API reference for the
 * calls the connector makes: create, retrieve (with expand[] paths: payment_intent, its
 * latest_charge and payment_method, the charge's balance_transaction) and expire a Checkout
 * Session, retrieve a balance transaction, a charge and a PaymentMethod, refund a charge or a
 * PaymentIntent and read its refunds (`/v1/refunds`), Bearer-key auth, Idempotency-Key replay and
 * mismatch, Stripe's error shape. Test controls play the customer (pay by card, in installments or not, Pix
 * or boleto) and Stripe's webhooks, signed the way Stripe signs them (the SDK's test header
 * helper). A charge's balance transaction carries Stripe's fee at the fake's `pricing`, the
 * application fee, and a conversion when `conversion` is set.
 *
 * It also plays Stripe Connect for a platform with Express accounts and direct charges: create and
 * retrieve connected accounts, Account Links to a hosted onboarding page served by the fake, the
 * Stripe-Account header (objects belong to the account they were created as), Checkout's
 * payment_intent_data[application_fee_amount], and Connect webhook events (a top-level `account`,
 * signed with the Connect endpoint's own secret).
 */
export interface FakeSession {
  id: string;
  object: 'checkout.session';
  url: string | null;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid';
  mode: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  amount_total: number;
  currency: string;
  expires_at: number;
  created: number;
  success_url: string;
  cancel_url: string | null;
  allowed_payment_method_types: string[] | null;
  payment_intent: string | null;
  /** payment_intent_data.metadata, given to the PaymentIntent when the customer pays. */
  payment_intent_metadata: Record<string, string>;
  /**
   * payment_intent_data.application_fee_amount (null without one), given to the PaymentIntent when
   * the customer pays. Not a field of Stripe's Session: kept here for tests to assert.
   */
  application_fee_amount: number | null;
  /**
   * https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-tax_id_collection:
   * as created (`tax_id_collection[enabled]`, `[required]`; off and `never` by default).
   */
  tax_id_collection: { enabled: boolean; required: 'if_supported' | 'never' };
  /**
   * https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-customer_details:
   * "The customer details including the customer's tax exempt status and the customer's tax IDs",
   * null until the customer submits the payment form (`pay`).
   */
  customer_details: FakeCustomerDetails | null;
}

/**
 * A completed Session's `customer_details` (Checkout/Sessions.d.ts, `Session.CustomerDetails`):
 * `tax_ids` holds what Checkout's tax ID form collected, which it shows only when the session was
 * created with `tax_id_collection[enabled]=true` ("To enable tax ID collection for new customers,
 * set tax_id_collection[enabled] to true", https://docs.stripe.com/tax/checkout/tax-ids), typed
 * `br_cpf` or `br_cnpj` for Brazil (https://docs.stripe.com/billing/customer/tax-ids).
 */
export interface FakeCustomerDetails {
  address: FakeAddress | null;
  business_name: string | null;
  email: string | null;
  individual_name: string | null;
  name: string | null;
  phone: string | null;
  tax_exempt: 'none';
  tax_ids: Array<{ type: 'br_cpf' | 'br_cnpj'; value: string }>;
}

/** https://docs.stripe.com/api/charges/object#charge_object-billing_details-address */
export interface FakeAddress {
  city: string | null;
  country: string | null;
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  state: string | null;
}

/**
 * https://docs.stripe.com/api/charges/object#charge_object-billing_details (and the PaymentMethod's
 * own `billing_details`): what Checkout collected of the payer. `tax_id`, "Taxpayer identification
 * number. Used only for transactions between LATAM buyers and non-LATAM sellers" (Charges.d.ts);
 * https://docs.stripe.com/changelog/basil/2025-04-30/add-tax-id-to-billing-details: "Checkout and
 * the Payment Element collect the tax_id automatically" for those, and "Populating this field is
 * prohibited in all other circumstances". So a Brazilian account's charge has it null.
 */
export interface FakeBillingDetails {
  address: FakeAddress | null;
  email: string | null;
  name: string | null;
  phone: string | null;
  tax_id: string | null;
}

/**
 * The card the customer pays with (`pay`'s `options.card`): its brand in Stripe's lowercase codes
 * (visa, mastercard, amex, diners, discover, jcb, unionpay... `visa` by default), last four digits
 * (`4242`, Stripe's test Visa), funding (credit, debit, prepaid or unknown; `credit`) and the
 * issuer's authorization code (six random digits by default; null: none reported).
 */
export interface FakeStripeCard {
  brand?: string;
  last4?: string;
  funding?: string;
  authorizationCode?: string | null;
}

/**
 * The payer as they fill in Checkout's form (`pay`'s `options.payer`): by default Maria Souza,
 * maria@example.com, CPF 529.982.247-25 (digits only). A null name or tax id: none given.
 */
export interface FakeStripePayer {
  name?: string | null;
  email?: string;
  taxId?: string | null;
}

const DEFAULT_PAYER = { name: 'Maria Souza', email: 'maria@example.com', taxId: '52998224725' };

/**
 * The boleto's address, which Stripe's boleto guide has Checkout collect with the name, email and
 * tax ID (https://docs.stripe.com/payments/boleto/accept-a-payment: "The full address of the
 * customer"); the fake's choice of one.
 */
const BOLETO_ADDRESS: FakeAddress = {
  city: 'São Paulo',
  country: 'BR',
  line1: 'Avenida Paulista, 1000',
  line2: null,
  postal_code: '01310-100',
  state: 'SP',
};

/**
 * Countries of Latin America, whose buyers give Stripe their tax ID when they pay a seller outside
 * it (the changelog above). The fake's list.
 */
const LATAM = new Set('AR BO BR CL CO CR DO EC GT HN MX NI PA PE PY SV UY VE'.split(' '));

/** https://docs.stripe.com/api/payment_intents/object: the fields the connector reads. */
interface FakeIntent {
  id: string;
  object: 'payment_intent';
  status: 'processing' | 'succeeded' | 'requires_payment_method';
  amount: number;
  currency: string;
  /** The session's payment_intent_data.metadata. */
  metadata: Record<string, string>;
  /** The charge of a succeeded payment (Stripe's `latest_charge`). */
  latest_charge: string | null;
  /** The types the intent may use: the session's allowed types, or the one the customer chose. */
  payment_method_types: string[];
  /** The PaymentMethod the customer paid with (expandable). */
  payment_method: string | null;
  /** The platform's fee on a direct charge (the session's payment_intent_data), else null. */
  application_fee_amount: number | null;
}

/** https://docs.stripe.com/api/payment_methods/object: `type`, and a hash named after it. */
interface FakePaymentMethod {
  id: string;
  object: 'payment_method';
  type: string;
  [details: string]: unknown;
}

/** https://docs.stripe.com/api/charges/object: the fields the connector reads. */
export interface FakeCharge {
  id: string;
  object: 'charge';
  payment_intent: string;
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  disputed: boolean;
  currency: string;
  /** Time at which the charge was made (seconds): the fake's `clock`. */
  created: number;
  payment_method: string | null;
  /** What Checkout collected of the payer (see FakeBillingDetails). */
  billing_details: FakeBillingDetails;
  /**
   * The method's details at the time of the charge: its `type`, and a hash named after it. Per
   * https://docs.stripe.com/api/charges/object#charge_object-payment_method_details and Charges.d.ts
   * (`PaymentMethodDetails.Card`, `.Boleto`, `.Pix`): a card's `brand`, `last4`, `funding`,
   * `authorization_code` ("Authorization code on the charge", on the card hash since
   * https://docs.stripe.com/changelog/acacia/2024-09-30/displays-authorization-code-for-charges),
   * `exp_month`, `exp_year`, `country`, `network`, `amount_authorized` and `installments`; a
   * boleto's `tax_id` ("The tax ID of the customer (CPF for individuals consumers or CNPJ for
   * businesses consumers)"); a Pix's `bank_transaction_id` ("Unique transaction id generated by
   * BCB"). Charges.d.ts also has an optional top-level `authorization_code`; the fake writes none
   * there: stripe-go's PR adding it (github.com/stripe/stripe-go/pull/669) says "this property is
   * internal and not usually returned in the API", and Stripe's changelog gives card charges theirs
   * in `payment_method_details.card`.
   */
  payment_method_details: { type: string; [details: string]: unknown };
  /** The charge's balance transaction (expandable), made with the charge. */
  balance_transaction: string | null;
}

/**
 * https://docs.stripe.com/api/refunds/object (Refunds.d.ts, `Refund`): a refund of a charge, all
 * or part of what is left of it. `status` is `succeeded` for a card; a Pix refund is `pending`
 * (`pending_reason: 'processing'`, https://docs.stripe.com/changelog/basil/2025-04-30/refund-pending-reason)
 * until the test settles it (`settleRefund`), as the Pix network pays it back. The fake makes no
 * balance transaction for a refund: `balance_transaction` is null.
 */
export interface FakeRefund {
  id: string;
  object: 'refund';
  amount: number;
  balance_transaction: string | null;
  charge: string;
  created: number;
  currency: string;
  customer: string | null;
  metadata: Record<string, string>;
  payment_intent: string;
  payment_method: string | null;
  reason: 'duplicate' | 'fraudulent' | 'requested_by_customer' | null;
  receipt_number: string | null;
  source_transfer_reversal: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  /** Only while `pending` (Refunds.d.ts: `processing`, `insufficient_funds`, `charge_pending`). */
  pending_reason?: 'processing';
  /** Only once `failed` (Refunds.d.ts lists `declined`, `unknown`...). */
  failure_reason?: string;
  transfer_reversal: string | null;
}

/** What a refund is made of: as `POST /v1/refunds` takes it, or the dashboard hook gives it. */
export interface FakeRefundParams {
  amount?: number;
  reason?: FakeRefund['reason'];
  metadata?: Record<string, string>;
}

/** https://docs.stripe.com/api/refunds/create: the reasons a caller may give. */
const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'];

/** A refund Stripe refuses: its status and Stripe's error (https://docs.stripe.com/error-codes). */
interface RefundRefusal {
  status: number;
  error: { type: string; code?: string; param?: string; message: string };
}

/**
 * https://docs.stripe.com/api/balance_transactions/object: a charge's movement of the balance of
 * the account it was made as. `fee` is the sum of `fee_details`; `net` is `amount - fee`; with a
 * conversion, `amount`, `fee` and `net` are in the balance's `currency` and `exchange_rate` is set.
 */
export interface FakeBalanceTransaction {
  id: string;
  object: 'balance_transaction';
  amount: number;
  /** Midnight UTC of the day the net becomes available (seconds). */
  available_on: number;
  created: number;
  currency: string;
  description: string | null;
  exchange_rate: number | null;
  fee: number;
  fee_details: Array<{
    amount: number;
    /** The Connect application that earned the fee (an application fee), else null. */
    application: string | null;
    currency: string;
    description: string | null;
    type: 'stripe_fee' | 'tax' | 'application_fee' | 'payment_method_passthrough_fee';
  }>;
  net: number;
  reporting_category: 'charge';
  source: string;
  status: 'pending' | 'available';
  type: 'charge' | 'payment';
}

/**
 * What Stripe charges for one way of paying, in the fake: a percent of the amount (rounded to the
 * minor unit) and a fixed part in the balance's minor units; its funds available that many days
 * after the charge's day (UTC).
 */
export interface FakeRate {
  percent: number;
  fixed: number;
  availableAfterDays: number;
}

/**
 * https://docs.stripe.com/api/accounts/object: a connected account. Created with its onboarding
 * to do (nothing enabled, requirements currently due); onboarding enables charges and payouts.
 */
export interface FakeAccount {
  id: string;
  object: 'account';
  /** `express`, `standard` or `custom` as created, or `none` when created with `controller`. */
  type: 'express' | 'standard' | 'custom' | 'none';
  controller: Record<string, unknown>;
  country: string;
  email: string | null;
  /** Each requested capability and its status. */
  capabilities: Record<string, 'active' | 'inactive' | 'pending'>;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  requirements: {
    currently_due: string[];
    eventually_due: string[];
    past_due: string[];
    pending_verification: string[];
    disabled_reason: string | null;
    current_deadline: number | null;
    errors: unknown[];
  };
  metadata: Record<string, string>;
  created: number;
}

/**
 * https://docs.stripe.com/api/account_links/object: what the fake keeps of an Account Link, a
 * single-use, short-lived URL (`visited` once opened, `used` once onboarding was submitted).
 */
export interface FakeAccountLink {
  id: string;
  account: string;
  url: string;
  refresh_url: string | null;
  return_url: string | null;
  created: number;
  expires_at: number;
  visited: boolean;
  used: boolean;
}

/**
 * What a new account's `requirements` list as due until onboarding (field names in the form of
 * https://docs.stripe.com/api/accounts/object `requirements.currently_due`; which ones is the
 * fake's choice).
 */
const ONBOARDING_DUE = [
  'business_type',
  'external_account',
  'tos_acceptance.date',
  'tos_acceptance.ip',
];

/** What the fake says each fee is (`fee_details[].description`, an arbitrary string). */
const FEE_DESCRIPTIONS: Record<FakeBalanceTransaction['fee_details'][number]['type'], string> = {
  stripe_fee: 'Stripe processing fees',
  tax: 'Tax on Stripe fees',
  application_fee: 'Application fee',
  payment_method_passthrough_fee: 'Payment method fees',
};

export class FakeStripe extends LoopbackFake {
  readonly sessions = new Map<string, FakeSession>();
  readonly intents = new Map<string, FakeIntent>();
  readonly charges = new Map<string, FakeCharge>();
  readonly balanceTransactions = new Map<string, FakeBalanceTransaction>();
  readonly paymentMethods = new Map<string, FakePaymentMethod>();
  /**
   * Stripe's price per way of paying (tests set their own). The default is the fake's choice,
   * Stripe Brazil's published domestic card price as remembered (3.99% + R$ 0.39), with a Pix
   * at a percent and a boleto at a fixed price; availability days are the fake's choice too.
   */
  pricing: Record<'card' | 'pix' | 'boleto', FakeRate> = {
    card: { percent: 3.99, fixed: 39, availableAfterDays: 30 },
    pix: { percent: 1.19, fixed: 0, availableAfterDays: 2 },
    boleto: { percent: 0, fixed: 345, availableAfterDays: 2 },
  };
  /** Stripe's tax on its own fee (a `tax` fee detail), a percent of it; none by default. */
  feeTaxPercent = 0;
  /**
   * The balance's currency, for a charge in another (a conversion): the charge's amount times
   * `rate` becomes its balance transaction's amount (the reference's `exchange_rate`), its fees
   * computed in the balance's currency.
   */
  conversion: { currency: string; rate: number } | undefined;
  /** The platform's Connect application, which earns the application fees. */
  readonly application = 'ca_fake_0123456789';
  /**
   * The platform's own account's country (https://docs.stripe.com/api/accounts/object `country`):
   * a charge made as the platform is a seller's of that country (a connected account's, its own).
   */
  country = 'BR';
  /**
   * Stripe's now: when sessions are created (and the 30 minutes to 24 hours their `expires_at`
   * must be from it), and charges made (their `created`, their funds' `available_on`).
   */
  clock: () => Date = () => new Date();
  /** Connected accounts, by id. */
  readonly accounts = new Map<string, FakeAccount>();
  /** Account Links, by the id ending their URL (`/onboarding/:linkId`). */
  readonly accountLinks = new Map<string, FakeAccountLink>();
  /** How long a new Account Link lives: Stripe's reference example expires 300 s after creation. */
  accountLinkTtlSeconds = 300;
  /** The platform's Connect webhook endpoint: when set, `account.updated` events are sent to it. */
  connectWebhookUrl: string | undefined;
  /** Every Connect event the fake sent itself (to `connectWebhookUrl`); status 0 if unreachable. */
  readonly connectDeliveries: Array<{ id: string; type: string; account: string; status: number }> =
    [];
  /**
   * Every request received: method, path, the parsed form body, and the Stripe-Account it was
   * made as (none: the platform).
   */
  readonly requests: Array<{
    method: string;
    path: string;
    body: unknown;
    idempotencyKey?: string;
    stripeAccount?: string;
  }> = [];
  /** Refunds, by id (`re_…`), made by `POST /v1/refunds` or the `refund` hook. */
  readonly refunds = new Map<string, FakeRefund>();
  /**
   * https://docs.stripe.com/api/idempotent_requests: what the first request with a key (scoped to
   * the account it acted as) was, `endpoint params`, and the status and body it was answered.
   */
  private readonly idempotent = new Map<
    string,
    { body: string; status: number; answer: unknown }
  >();

  /**
   * A POST under Stripe's Idempotency-Key (https://docs.stripe.com/api/idempotent_requests), a
   * key being its account's own: the first answer is saved once the endpoint ran (`keep` false:
   * a parameter that failed validation, not saved) and replayed for the same key; the same key
   * with another endpoint or other parameters is an idempotency_error.
   */
  private idempotently(
    req: express.Request,
    res: Response,
    handle: (account: string | undefined) => { status: number; answer: unknown; keep?: boolean },
  ): void {
    const account = req.header('stripe-account');
    const key = req.header('idempotency-key');
    const scoped = key && `${account ?? ''} ${key}`;
    const body = `${req.path} ${JSON.stringify(req.body)}`;
    const earlier = scoped ? this.idempotent.get(scoped) : undefined;
    if (earlier && earlier.body !== body) {
      return stripeError(
        res,
        400,
        'idempotency_error',
        'Keys for idempotent requests can only be used with the same parameters they were first used with.',
      );
    }
    if (earlier) {
      res.status(earlier.status).json(earlier.answer);
      return;
    }
    const { status, answer, keep = true } = handle(account);
    if (scoped && keep) this.idempotent.set(scoped, { body, status, answer });
    res.status(status).json(answer);
  }
  /** The connected account an object was created as (sessions, intents, charges...). */
  private readonly owners = new Map<string, string>();
  /** What the customer gave for an intent (billing details, the method's details), by intent id. */
  private readonly given = new Map<
    string,
    { billing: FakeBillingDetails; details: Record<string, unknown> }
  >();

  constructor(
    readonly secretKey = 'sk_test_fake_0123456789',
    readonly webhookSecret = 'whsec_fake_0123456789',
    /** The Connect webhook endpoint's own signing secret (https://docs.stripe.com/connect/webhooks). */
    readonly connectWebhookSecret = 'whsec_fake_connect_0123456789',
  ) {
    super();
  }

  protected buildApp(): express.Express {
    const app = express();
    // Stripe's form encoding nests with brackets (line_items[0][price_data][currency], expand[0]).
    app.set('query parser', 'extended');
    app.use(express.urlencoded({ extended: true }));
    app.use((req, _res, next) => {
      this.requests.push({
        method: req.method,
        path: req.path,
        body: req.body,
        idempotencyKey: req.header('idempotency-key'),
        stripeAccount: req.header('stripe-account'),
      });
      next();
    });
    // The hosted onboarding an Account Link opens: a page for the account's user, no API key.
    // https://docs.stripe.com/api/account_links/create: single use; refresh_url when "expired, has
    // been previously-visited, or is otherwise invalid"; return_url on completing the flow.
    app.get('/onboarding/:linkId', (req, res) => {
      const link = this.accountLinks.get(req.params.linkId);
      if (!link) return void res.status(404).type('html').send(page('Link inválido.'));
      const now = Math.floor(Date.now() / 1000);
      if (link.visited || link.used || now >= link.expires_at) return leave(res, link.refresh_url);
      link.visited = true;
      return void res
        .type('html')
        .send(
          page(
            `Cadastro da conta ${link.account}`,
            `<form method="post" action="/onboarding/${link.id}"><button type="submit">Concluir</button></form>`,
          ),
        );
    });
    app.post('/onboarding/:linkId', async (req, res) => {
      const link = this.accountLinks.get(req.params.linkId);
      if (!link) return void res.status(404).type('html').send(page('Link inválido.'));
      // Submitting needs the page opened through this link, once.
      if (!link.visited || link.used) return leave(res, link.refresh_url);
      link.used = true;
      await this.completeOnboarding(link.account);
      return leave(res, link.return_url, 'Cadastro concluído.');
    });
    app.use((req, res, next) => {
      if (req.header('authorization') !== `Bearer ${this.secretKey}`) {
        return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided.');
      }
      // https://docs.stripe.com/connect/authentication: acting as a connected account with the
      // Stripe-Account header; an account the key may not act as is refused (error code
      // account_invalid, https://docs.stripe.com/error-codes).
      const account = req.header('stripe-account');
      if (account !== undefined && !this.accounts.has(account)) return this.noAccess(res, account);
      next();
    });
    // https://docs.stripe.com/api/balance/balance_retrieve
    app.get('/v1/balance', (_req, res) => {
      res.json({
        object: 'balance',
        available: [{ amount: 0, currency: 'brl', source_types: { card: 0 } }],
        pending: [{ amount: 0, currency: 'brl', source_types: { card: 0 } }],
        livemode: false,
      });
    });
    // https://docs.stripe.com/api/accounts/create
    app.post('/v1/accounts', (req, res) => {
      const created = this.createAccount(req.body as Record<string, unknown>);
      if ('error' in created) {
        return stripeError(res, 400, 'invalid_request_error', created.error, { param: 'type' });
      }
      return res.json(created);
    });
    // https://docs.stripe.com/api/accounts/retrieve: with no id, the account of the key (the
    // platform's own, or the Stripe-Account header's).
    app.get('/v1/account', (req, res) => {
      const id = req.header('stripe-account');
      if (id) {
        const account = this.accounts.get(id);
        return account ? res.json(account) : this.noAccess(res, id);
      }
      return res.json({ id: 'acct_platform', object: 'account', country: this.country });
    });
    // https://docs.stripe.com/api/accounts/retrieve. An account id in the URL implies the
    // Stripe-Account header (https://docs.stripe.com/connect/authentication): the same refusal.
    app.get('/v1/accounts/:id', (req, res) => {
      const account = this.accounts.get(req.params.id);
      if (!account) return this.noAccess(res, req.params.id);
      return res.json(account);
    });
    // https://docs.stripe.com/api/account_links/create
    app.post('/v1/account_links', (req, res) => {
      const body = req.body as Record<string, unknown>;
      for (const param of ['account', 'type']) {
        if (typeof body[param] !== 'string') {
          return stripeError(
            res,
            400,
            'invalid_request_error',
            `Missing required param: ${param}.`,
            { code: 'parameter_missing', param },
          );
        }
      }
      const account = this.accounts.get(body.account as string);
      if (!account) {
        return stripeError(
          res,
          400,
          'invalid_request_error',
          `No such account: '${String(body.account)}'`,
          { code: 'resource_missing', param: 'account' },
        );
      }
      // account_update is only for accounts whose platform collects requirements, never for an
      // account with a Stripe-hosted Dashboard (Express, Standard).
      if (body.type !== 'account_onboarding') {
        return stripeError(
          res,
          400,
          'invalid_request_error',
          `You cannot create an account link of type '${String(body.type)}' for this account.`,
          { param: 'type' },
        );
      }
      const id = randomBytes(12).toString('hex');
      const created = Math.floor(Date.now() / 1000);
      const link: FakeAccountLink = {
        id,
        account: account.id,
        url: `${this.url}/onboarding/${id}`,
        refresh_url: (body.refresh_url as string | undefined) ?? null,
        return_url: (body.return_url as string | undefined) ?? null,
        created,
        expires_at: created + this.accountLinkTtlSeconds,
        visited: false,
        used: false,
      };
      this.accountLinks.set(id, link);
      return res.json({
        object: 'account_link',
        created,
        expires_at: link.expires_at,
        url: link.url,
      });
    });
    app.post('/v1/checkout/sessions', (req, res) =>
      this.idempotently(req, res, (account) => {
        const created = this.createSession(req.body as Record<string, unknown>, account);
        if ('error' in created) {
          const { error, ...details } = created;
          // A parameter that fails validation is not saved under the key.
          return {
            status: 400,
            answer: stripeErrorBody('invalid_request_error', error, details),
            keep: false,
          };
        }
        return { status: 200, answer: created };
      }),
    );
    // https://docs.stripe.com/api/refunds/create: a refund of a charge, named by it or by its
    // PaymentIntent; Idempotency-Key as https://docs.stripe.com/api/idempotent_requests says: the
    // first answer (success or refusal) saved once the endpoint runs, a parameter that fails
    // validation saved not; the same key with other parameters is an idempotency_error.
    app.post('/v1/refunds', (req, res) =>
      this.idempotently(req, res, (account) => {
        const asked = this.refundAsked((req.body ?? {}) as Record<string, unknown>, account);
        if ('error' in asked)
          return { status: asked.status, answer: { error: asked.error }, keep: false };
        const made = this.makeRefund(asked.charge, asked.params);
        return 'error' in made
          ? { status: made.status, answer: { error: made.error } }
          : { status: 200, answer: structuredClone(made) };
      }),
    );
    // https://docs.stripe.com/api/refunds/retrieve
    app.get('/v1/refunds/:id', (req, res) => {
      const refund = this.owned(this.refunds, req.params.id, req.header('stripe-account'));
      if (!refund) return missing(res, req.params.id, 'refund');
      return res.json(refund);
    });
    // https://docs.stripe.com/api/refunds/list: newest first, by `charge` or `payment_intent`.
    app.get('/v1/refunds', (req, res) => {
      const account = req.header('stripe-account') ?? null;
      const { charge, payment_intent: intent } = req.query as Record<string, unknown>;
      const data = [...this.refunds.values()]
        .filter(
          (r) =>
            this.accountOf(r.id) === account &&
            (charge === undefined || r.charge === charge) &&
            (intent === undefined || r.payment_intent === intent),
        )
        .reverse();
      return res.json({ object: 'list', data, has_more: false, url: '/v1/refunds' });
    });
    app.get('/v1/checkout/sessions/:id', (req, res) => {
      const session = this.owned(this.sessions, req.params.id, req.header('stripe-account'));
      if (!session) return missing(res, req.params.id);
      const expand = ([] as unknown[]).concat((req.query.expand as unknown) ?? []);
      // https://docs.stripe.com/api/expanding_objects: each path expands every object along it
      // (payment_intent.latest_charge.balance_transaction: the intent, its charge, the charge's
      // balance transaction); a path naming nothing expandable is left as it is.
      const expanded = expand
        .filter((path): path is string => typeof path === 'string')
        .reduce<Record<string, unknown>>(
          (object, path) => this.expandPath(object, path.split('.')),
          { ...session },
        );
      return res.json(expanded);
    });
    // https://docs.stripe.com/api/balance_transactions/retrieve
    app.get('/v1/balance_transactions/:id', (req, res) => {
      const found = this.owned(
        this.balanceTransactions,
        req.params.id,
        req.header('stripe-account'),
      );
      if (!found) return missing(res, req.params.id, 'balance_transaction');
      return res.json(found);
    });
    // https://docs.stripe.com/api/charges/retrieve
    app.get('/v1/charges/:id', (req, res) => {
      const charge = this.owned(this.charges, req.params.id, req.header('stripe-account'));
      if (!charge) return missing(res, req.params.id, 'charge');
      // Charges.d.ts: `refunds?: ApiList<Refund>`, a list given only when expanded
      // (https://docs.stripe.com/api/charges/object#charge_object-refunds).
      const expand = ([] as unknown[]).concat((req.query.expand as unknown) ?? []);
      if (!expand.includes('refunds')) return res.json(charge);
      const data = this.refundsOf(charge.id).reverse();
      return res.json({
        ...charge,
        refunds: { object: 'list', data, has_more: false, url: `/v1/charges/${charge.id}/refunds` },
      });
    });
    // https://docs.stripe.com/api/payment_methods/retrieve
    app.get('/v1/payment_methods/:id', (req, res) => {
      const method = this.owned(this.paymentMethods, req.params.id, req.header('stripe-account'));
      if (!method) return missing(res, req.params.id, 'payment_method');
      return res.json(method);
    });
    // https://docs.stripe.com/api/payment_intents/retrieve
    app.get('/v1/payment_intents/:id', (req, res) => {
      const intent = this.owned(this.intents, req.params.id, req.header('stripe-account'));
      if (!intent) return missing(res, req.params.id, 'payment_intent');
      return res.json(intent);
    });
    app.post('/v1/checkout/sessions/:id/expire', (req, res) => {
      const session = this.owned(this.sessions, req.params.id, req.header('stripe-account'));
      if (!session) return missing(res, req.params.id);
      if (session.status !== 'open') {
        return stripeError(
          res,
          400,
          'invalid_request_error',
          `This Checkout Session is ${session.status}.`,
        );
      }
      session.status = 'expired';
      session.url = null;
      return res.json(session);
    });
    app.use((req, res) =>
      stripeError(
        res,
        404,
        'invalid_request_error',
        `Unrecognized request URL (${req.method}: ${req.path}).`,
      ),
    );
    return app;
  }

  /** `object` with the path's first field expanded, and the rest of the path within it. */
  private expandPath(object: Record<string, unknown>, path: string[]): Record<string, unknown> {
    const [field, ...rest] = path;
    if (!field) return object;
    const value = object[field];
    const found = typeof value === 'string' ? this.expandable(field, value) : value;
    if (!found || typeof found !== 'object') return object;
    return { ...object, [field]: this.expandPath({ ...(found as object) }, rest) };
  }

  /** The object an expandable field's id names. */
  private expandable(field: string, id: string): object | undefined {
    const maps: Record<string, Map<string, object>> = {
      payment_intent: this.intents,
      latest_charge: this.charges,
      payment_method: this.paymentMethods,
      balance_transaction: this.balanceTransactions,
    };
    return maps[field]?.get(id);
  }

  /** The official SDK aimed at the fake, as a client of the real API: no retries, no telemetry. */
  client(): Stripe {
    const { hostname, port } = new URL(this.url);
    return new Stripe(this.secretKey, {
      host: hostname,
      port: Number(port),
      protocol: 'http',
      maxNetworkRetries: 0,
      telemetry: false,
    });
  }

  /** The variables that aim the connector at this fake. */
  env(): Record<string, string> {
    return {
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: this.secretKey,
      STRIPE_WEBHOOK_SECRET: this.webhookSecret,
      STRIPE_API_URL: this.url,
      // A loopback fake is no official host: the deployment lists it (CONTRACT "Provider hosts").
      PROVIDER_API_ORIGINS: this.url,
    };
  }

  /** The connected account an object was created as, or null for the platform's own. */
  accountOf(objectId: string): string | null {
    return this.owners.get(objectId) ?? null;
  }

  /** An object of `map` only as the account it belongs to: another account finds none. */
  private owned<T>(map: Map<string, T>, id: string, account: string | undefined): T | undefined {
    return this.accountOf(id) === (account ?? null) ? map.get(id) : undefined;
  }

  /** A key that may not act as `account`, or an account that does not exist (403). */
  private noAccess(res: Response, account: string): void {
    const key = `${this.secretKey.slice(0, 8)}${'*'.repeat(Math.max(this.secretKey.length - 12, 0))}${this.secretKey.slice(-4)}`;
    return stripeError(
      res,
      403,
      'invalid_request_error',
      `The provided key '${key}' does not have access to account '${account}' (or that account does not exist). Application access may have been revoked.`,
      { code: 'account_invalid' },
    );
  }

  private createAccount(body: Record<string, unknown>): FakeAccount | { error: string } {
    const type = body.type as string | undefined;
    const controller = body.controller as Record<string, unknown> | undefined;
    if (type !== undefined && !['express', 'standard', 'custom'].includes(type)) {
      return { error: `Invalid type: must be one of custom, express, or standard` };
    }
    const requested = (body.capabilities ?? {}) as Record<string, { requested?: string }>;
    const capabilities = Object.fromEntries(
      Object.entries(requested)
        .filter(([, capability]) => capability?.requested === 'true')
        .map(([name]) => [name, 'inactive' as const]),
    );
    // https://docs.stripe.com/connect/migrate-to-controller-properties: an Express account's
    // controller properties.
    const express = {
      fees: { payer: 'application' },
      losses: { payments: 'application' },
      requirement_collection: 'stripe',
      stripe_dashboard: { type: 'express' },
    };
    const account: FakeAccount = {
      id: `acct_${randomBytes(8).toString('hex')}`,
      object: 'account',
      type: (type ?? (controller ? 'none' : 'standard')) as FakeAccount['type'],
      controller: {
        ...(type === 'express' ? express : (controller ?? {})),
        type: 'application',
        is_controller: true,
      },
      country: (body.country as string | undefined) ?? 'BR',
      email: (body.email as string | undefined) ?? null,
      capabilities,
      charges_enabled: false,
      payouts_enabled: false,
      details_submitted: false,
      requirements: {
        currently_due: [...ONBOARDING_DUE],
        eventually_due: [...ONBOARDING_DUE],
        past_due: [...ONBOARDING_DUE],
        pending_verification: [],
        disabled_reason: 'requirements.past_due',
        current_deadline: null,
        errors: [],
      },
      metadata: (body.metadata as Record<string, string> | undefined) ?? {},
      created: Math.floor(Date.now() / 1000),
    };
    this.accounts.set(account.id, account);
    return account;
  }

  private createSession(
    body: Record<string, unknown>,
    account?: string,
  ): FakeSession | { error: string; param?: string; code?: string } {
    const items = (body.line_items ?? []) as Array<{
      quantity?: string;
      price_data?: { currency?: string; unit_amount?: string };
    }>;
    if (body.mode !== 'payment') return { error: 'Missing required param: mode.' };
    if (typeof body.success_url !== 'string')
      return { error: 'Missing required param: success_url.' };
    if (items.length === 0) return { error: 'Missing required param: line_items.' };
    const currency = items[0]?.price_data?.currency ?? '';
    const amount = items.reduce(
      (sum, item) => sum + Number(item.price_data?.unit_amount ?? 0) * Number(item.quantity ?? 1),
      0,
    );
    const now = Math.floor(this.clock().getTime() / 1000);
    const expiresAt = body.expires_at === undefined ? now + 86_400 : Number(body.expires_at);
    if (expiresAt < now + 1800 || expiresAt > now + 86_400) {
      return {
        error: 'The `expires_at` timestamp must be between 30 minutes and 24 hours from now.',
      };
    }
    const intentData = (body.payment_intent_data ?? {}) as {
      metadata?: Record<string, string>;
      application_fee_amount?: string;
    };
    const taxIds = (body.tax_id_collection ?? {}) as { enabled?: unknown; required?: unknown };
    const fee = this.applicationFee(intentData.application_fee_amount, amount, account);
    if (typeof fee === 'object' && fee !== null) return fee;
    // https://docs.stripe.com/connect/direct-charges: only an account that can take card payments
    // can be charged directly.
    if (account && !this.accounts.get(account)?.charges_enabled) {
      return {
        error:
          'You cannot create a charge on a connected account without the `card_payments` capability enabled.',
      };
    }
    const id = `cs_test_${randomBytes(12).toString('hex')}`;
    const session: FakeSession = {
      id,
      object: 'checkout.session',
      url: `${this.url}/pay/${id}`,
      status: 'open',
      payment_status: 'unpaid',
      mode: 'payment',
      client_reference_id: (body.client_reference_id as string | undefined) ?? null,
      metadata: (body.metadata as Record<string, string> | undefined) ?? {},
      amount_total: amount,
      currency,
      expires_at: expiresAt,
      created: now,
      success_url: body.success_url,
      cancel_url: (body.cancel_url as string | undefined) ?? null,
      allowed_payment_method_types:
        (body.allowed_payment_method_types as string[] | undefined) ?? null,
      payment_intent: null,
      payment_intent_metadata: intentData.metadata ?? {},
      application_fee_amount: fee,
      tax_id_collection: {
        enabled: String(taxIds.enabled) === 'true',
        required: taxIds.required === 'if_supported' ? 'if_supported' : 'never',
      },
      customer_details: null,
    };
    this.sessions.set(id, session);
    if (account) this.owners.set(id, account);
    return session;
  }

  /**
   * payment_intent_data[application_fee_amount]: a platform's fee on a direct charge, so only as
   * a connected account (https://docs.stripe.com/connect/direct-charges); a non-negative integer
   * no larger than the payment.
   */
  private applicationFee(
    given: string | undefined,
    amount: number,
    account: string | undefined,
  ): number | null | { error: string; param: string; code?: string } {
    if (given === undefined) return null;
    const param = 'payment_intent_data[application_fee_amount]';
    if (!account) {
      return {
        error:
          'Can only apply an application_fee_amount when the PaymentIntent is attempting a direct payment (using an OAuth key or Stripe-Account header) or destination payment (using `transfer_data[destination]`).',
        param,
      };
    }
    if (!/^\d+$/.test(given)) {
      return /^-\d+$/.test(given)
        ? { error: 'This value must be greater than or equal to 0.', param }
        : { error: `Invalid integer: ${given}`, param, code: 'parameter_invalid_integer' };
    }
    const fee = Number(given);
    if (fee > amount) {
      return {
        error: `The application fee (${fee}) cannot be greater than the payment's amount (${amount}).`,
        param,
      };
    }
    return fee;
  }

  /**
   * The account's user completes onboarding (what the hosted page's button does): details
   * submitted, requested capabilities active, charges and payouts enabled, nothing due. Sends
   * `account.updated` to `connectWebhookUrl` when set, and resolves once it was delivered.
   */
  async completeOnboarding(accountId: string): Promise<FakeAccount> {
    const account = this.account(accountId);
    const previous = this.snapshot(account);
    for (const name of Object.keys(account.capabilities)) account.capabilities[name] = 'active';
    Object.assign(account, {
      details_submitted: true,
      charges_enabled: true,
      payouts_enabled: true,
      requirements: {
        ...account.requirements,
        currently_due: [],
        eventually_due: [],
        past_due: [],
        disabled_reason: null,
      },
    });
    await this.accountUpdated(account, previous);
    return account;
  }

  /**
   * Stripe enables or disables the account's charges (card_payments follows; disabling says
   * `under_review`). Sends `account.updated` to `connectWebhookUrl` when the value changes.
   */
  async setChargesEnabled(accountId: string, enabled: boolean): Promise<FakeAccount> {
    const account = this.account(accountId);
    if (account.charges_enabled === enabled) return account;
    const previous = this.snapshot(account);
    account.charges_enabled = enabled;
    account.capabilities.card_payments = enabled ? 'active' : 'inactive';
    account.requirements = {
      ...account.requirements,
      disabled_reason: enabled ? null : 'under_review',
    };
    await this.accountUpdated(account, previous);
    return account;
  }

  account(accountId: string): FakeAccount {
    const account = this.accounts.get(accountId);
    if (!account) throw new Error(`no account ${accountId}`);
    return account;
  }

  private snapshot(account: FakeAccount): Partial<FakeAccount> {
    return structuredClone({
      capabilities: account.capabilities,
      charges_enabled: account.charges_enabled,
      payouts_enabled: account.payouts_enabled,
      details_submitted: account.details_submitted,
      requirements: account.requirements,
    });
  }

  /**
   * https://docs.stripe.com/connect/webhooks: `account.updated`, with the changed fields' earlier
   * values (`previous_attributes`), to the Connect endpoint when one is registered.
   */
  private async accountUpdated(account: FakeAccount, previous: Partial<FakeAccount>) {
    if (!this.connectWebhookUrl) return;
    const changed = Object.fromEntries(
      Object.entries(previous).filter(
        ([field, value]) =>
          JSON.stringify(value) !== JSON.stringify(account[field as keyof FakeAccount]),
      ),
    );
    const event = this.event('account.updated', account, {
      account: account.id,
      previousAttributes: changed,
    });
    let status = 0;
    try {
      const response = await fetch(this.connectWebhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': this.signature(event.body, { secret: this.connectWebhookSecret }),
        },
        body: event.body,
      });
      status = response.status;
      await response.arrayBuffer();
    } catch {
      // Unreachable: recorded with status 0, as Stripe would retry later.
    }
    this.connectDeliveries.push({
      id: event.id,
      type: 'account.updated',
      account: account.id,
      status,
    });
  }

  /**
   * The customer pays: by card (paid at once; in `installments` monthly ones when given, a
   * fixed_count plan) or by Pix or boleto (processing until `settle`), with a PaymentMethod of that
   * type attached to the intent. `card` is the card (FakeStripeCard), `payer` what the payer types
   * into Checkout (FakeStripePayer); where Stripe reports them is said at FakeCharge,
   * FakeBillingDetails and FakeCustomerDetails.
   */
  pay(
    sessionId: string,
    method: 'card' | 'pix' | 'boleto' = 'card',
    options: { installments?: number; card?: FakeStripeCard; payer?: FakeStripePayer } = {},
  ): FakeSession {
    const session = this.session(sessionId);
    if (session.status !== 'open') throw new Error(`session ${sessionId} is ${session.status}`);
    // Checkout shows only the allowed types (when the session names some).
    const allowed = session.allowed_payment_method_types;
    if (allowed && !allowed.includes(method)) throw new Error(`${method} is not offered`);
    const payer = {
      name: options.payer?.name === undefined ? DEFAULT_PAYER.name : options.payer.name,
      email: options.payer?.email ?? DEFAULT_PAYER.email,
      taxId: options.payer?.taxId === undefined ? DEFAULT_PAYER.taxId : options.payer.taxId,
    };
    // https://docs.stripe.com/payments/boleto/accept-a-payment: a boleto needs the payer's name,
    // email, tax ID (CPF or CNPJ) and address; the charge's boleto.tax_id is never null.
    if (method === 'boleto' && (!payer.taxId || !payer.name)) {
      throw new Error("a boleto needs the payer's name and CPF or CNPJ");
    }
    const now = this.clock();
    const owner = this.owners.get(session.id);
    const sellerCountry = (owner ? this.accounts.get(owner)?.country : this.country) ?? 'BR';
    const billing: FakeBillingDetails = {
      address: method === 'boleto' ? { ...BOLETO_ADDRESS } : null,
      email: payer.email,
      // The card form asks the cardholder's name and the boleto guide the customer's; Stripe's Pix
      // guide (https://docs.stripe.com/payments/pix/accept-a-payment) lists nothing Checkout
      // collects of the payer for a Pix but the email every Session asks: no name.
      name: method === 'pix' ? null : payer.name,
      phone: null,
      // A Brazilian buyer's tax ID only for a seller outside Latin America (see FakeBillingDetails).
      tax_id: LATAM.has(sellerCountry) ? null : payer.taxId,
    };
    const card = {
      brand: options.card?.brand ?? 'visa',
      last4: options.card?.last4 ?? '4242',
      funding: options.card?.funding ?? 'credit',
      exp_month: 12,
      exp_year: now.getUTCFullYear() + 3,
      country: 'BR',
    };
    // https://docs.stripe.com/api/payment_methods/object: the `card` hash (brand, last4, funding,
    // exp_month, exp_year, country), the `boleto` one (tax_id, "Uniquely identifies the customer
    // tax id (CNPJ or CPF)"), an empty `pix`; and the PaymentMethod's billing_details.
    const methodHash: Record<string, unknown> =
      method === 'card' ? { ...card } : method === 'boleto' ? { tax_id: payer.taxId } : {};
    const paymentMethod: FakePaymentMethod = {
      id: `pm_${randomBytes(12).toString('hex')}`,
      object: 'payment_method',
      type: method,
      billing_details: billing,
      created: Math.floor(now.getTime() / 1000),
      livemode: false,
      [method]: methodHash,
    };
    this.paymentMethods.set(paymentMethod.id, paymentMethod);
    const intent: FakeIntent = {
      id: `pi_${randomBytes(12).toString('hex')}`,
      object: 'payment_intent',
      status: method === 'card' ? 'succeeded' : 'processing',
      amount: session.amount_total,
      currency: session.currency,
      metadata: session.payment_intent_metadata,
      latest_charge: null,
      payment_method_types: allowed ?? [method],
      payment_method: paymentMethod.id,
      application_fee_amount: session.application_fee_amount,
    };
    this.intents.set(intent.id, intent);
    // A direct charge's objects are the connected account's, as its session is.
    if (owner) for (const id of [paymentMethod.id, intent.id]) this.owners.set(id, owner);
    // https://docs.stripe.com/api/charges/object#charge_object-payment_method_details-card-installments
    const plan = options.installments
      ? { count: options.installments, interval: 'month', type: 'fixed_count' }
      : null;
    const authorization = options.card?.authorizationCode;
    this.given.set(intent.id, {
      billing,
      details:
        method === 'card'
          ? {
              ...card,
              amount_authorized: intent.amount,
              authorization_code: authorization === undefined ? sixDigits() : authorization,
              network: card.brand,
              installments: plan && { plan },
            }
          : method === 'boleto'
            ? { tax_id: payer.taxId }
            : {},
    });
    if (intent.status === 'succeeded') this.charge(intent);
    Object.assign(session, {
      status: 'complete',
      payment_status: method === 'card' ? 'paid' : 'unpaid',
      payment_intent: intent.id,
      url: null,
      customer_details: {
        address: billing.address,
        business_name: null,
        email: payer.email,
        individual_name: null,
        name: billing.name,
        phone: null,
        tax_exempt: 'none',
        // Checkout's tax ID form only where the session enabled it (FakeCustomerDetails).
        tax_ids:
          session.tax_id_collection.enabled && payer.taxId
            ? [
                {
                  type: payer.taxId.replace(/\D/g, '').length > 11 ? 'br_cnpj' : 'br_cpf',
                  value: payer.taxId,
                },
              ]
            : [],
      } satisfies FakeCustomerDetails,
    });
    return session;
  }

  /**
   * An asynchronous payment (Pix, boleto) succeeds or fails. A Pix's charge carries its
   * `bank_transaction_id` ("unique transaction id generated by BCB"): `bankTransactionId` when
   * given (null for none), else one in the form of a Pix end-to-end id.
   */
  settle(
    sessionId: string,
    succeeded: boolean,
    options: { bankTransactionId?: string | null } = {},
  ): FakeSession {
    const session = this.session(sessionId);
    const intent = this.intents.get(session.payment_intent ?? '');
    if (!intent) throw new Error(`session ${sessionId} has no payment`);
    intent.status = succeeded ? 'succeeded' : 'requires_payment_method';
    if (succeeded) {
      session.payment_status = 'paid';
      const type = this.paymentMethods.get(intent.payment_method ?? '')?.type;
      const bankTransactionId =
        options.bankTransactionId === undefined ? this.endToEndId() : options.bankTransactionId;
      this.charge(intent, type === 'pix' ? { bank_transaction_id: bankTransactionId } : {});
    }
    return session;
  }

  /** A Pix end-to-end id: `E`, an ISPB, the minute (yyyyMMddHHmm, UTC), 11 letters or digits. */
  private endToEndId(): string {
    const minute = this.clock().toISOString().replace(/\D/g, '').slice(0, 12);
    return `E00000000${minute}${randomBytes(8).toString('hex').slice(0, 11)}`;
  }

  private charge(intent: FakeIntent, details: Record<string, unknown> = {}): FakeCharge {
    const type = this.paymentMethods.get(intent.payment_method ?? '')?.type ?? 'card';
    const given = this.given.get(intent.id);
    const charge: FakeCharge = {
      id: `ch_${randomBytes(12).toString('hex')}`,
      object: 'charge',
      payment_intent: intent.id,
      amount: intent.amount,
      amount_refunded: 0,
      refunded: false,
      disputed: false,
      currency: intent.currency,
      created: Math.floor(this.clock().getTime() / 1000),
      payment_method: intent.payment_method,
      billing_details: given?.billing ?? {
        address: null,
        email: null,
        name: null,
        phone: null,
        tax_id: null,
      },
      payment_method_details: {
        type,
        [type]:
          type === 'card'
            ? { installments: null, ...given?.details, ...details }
            : { ...given?.details, ...details },
      },
      balance_transaction: null,
    };
    this.charges.set(charge.id, charge);
    const owner = this.owners.get(intent.id);
    if (owner) this.owners.set(charge.id, owner);
    intent.latest_charge = charge.id;
    const transaction = this.balanceTransaction(charge, type, intent.application_fee_amount);
    charge.balance_transaction = transaction.id;
    if (owner) this.owners.set(transaction.id, owner);
    return charge;
  }

  /**
   * A charge's balance transaction: in the charge's currency, or the balance's (`conversion`);
   * Stripe's fee at `pricing` (and `feeTaxPercent`'s tax on it) and the application fee in
   * `fee_details`; available at midnight UTC `availableAfterDays` after the charge's day.
   */
  private balanceTransaction(
    charge: FakeCharge,
    type: string,
    applicationFee: number | null,
  ): FakeBalanceTransaction {
    const rate = this.pricing[type as keyof FakeStripe['pricing']] ?? this.pricing.card;
    const conversion =
      this.conversion && this.conversion.currency !== charge.currency ? this.conversion : undefined;
    const exchange = conversion?.rate ?? 1;
    const currency = conversion?.currency ?? charge.currency;
    const amount = Math.round(charge.amount * exchange);
    const stripeFee = Math.round((amount * rate.percent) / 100) + rate.fixed;
    const tax = Math.round((stripeFee * this.feeTaxPercent) / 100);
    const detail = (fee: number, kind: FakeBalanceTransaction['fee_details'][number]['type']) => ({
      amount: fee,
      application: kind === 'application_fee' ? this.application : null,
      currency,
      description: FEE_DESCRIPTIONS[kind],
      type: kind,
    });
    const feeDetails = [
      detail(stripeFee, 'stripe_fee'),
      ...(tax > 0 ? [detail(tax, 'tax')] : []),
      ...(applicationFee ? [detail(Math.round(applicationFee * exchange), 'application_fee')] : []),
    ];
    const fee = feeDetails.reduce((sum, item) => sum + item.amount, 0);
    const day = Math.floor(charge.created / 86_400) + rate.availableAfterDays;
    const transaction: FakeBalanceTransaction = {
      id: `txn_${randomBytes(12).toString('hex')}`,
      object: 'balance_transaction',
      amount,
      available_on: day * 86_400,
      created: charge.created,
      currency,
      description: null,
      exchange_rate: conversion ? exchange : null,
      fee,
      fee_details: feeDetails,
      net: amount - fee,
      reporting_category: 'charge',
      source: charge.id,
      status: 'pending',
      // https://docs.stripe.com/reports/balance-transaction-types: a card's is a `charge`, another
      // method's a `payment`.
      type: type === 'card' ? 'charge' : 'payment',
    };
    this.balanceTransactions.set(transaction.id, transaction);
    return transaction;
  }

  /** The paid charge of a session (throws when it has none). */
  chargeOf(sessionId: string): FakeCharge {
    const intent = this.intents.get(this.session(sessionId).payment_intent ?? '');
    const charge = intent?.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    if (!charge) throw new Error(`session ${sessionId} has no charge`);
    return charge;
  }

  /**
   * The shop refunds the payment from the dashboard: what is left of it by default, or `amount`;
   * the same refund `POST /v1/refunds` makes (charge.amount_refunded and charge.refunded follow).
   * A charge already refunded in full is left as it is; a refund Stripe refuses (a disputed
   * charge, a boleto, more than is left) throws.
   */
  refund(sessionId: string, params: FakeRefundParams = {}): FakeCharge {
    const charge = this.chargeOf(sessionId);
    if (charge.refunded) return charge;
    const made = this.makeRefund(charge, params);
    if ('error' in made) throw new Error(`Stripe refuses the refund: ${made.error.message}`);
    return charge;
  }

  /**
   * A pending refund (a Pix's) ends: `succeeded`, or `failed` (`failure_reason` `unknown`), when
   * its amount counts as refunded no more (charge.amount_refunded falls back, refunded with it).
   */
  settleRefund(refundId: string, succeeded = true): FakeRefund {
    const refund = this.refunds.get(refundId);
    if (!refund) throw new Error(`no refund ${refundId}`);
    if (refund.status !== 'pending') throw new Error(`refund ${refundId} is ${refund.status}`);
    delete refund.pending_reason;
    refund.status = succeeded ? 'succeeded' : 'failed';
    if (!succeeded) {
      refund.failure_reason = 'unknown';
      const charge = this.charges.get(refund.charge);
      if (charge) {
        charge.amount_refunded -= refund.amount;
        charge.refunded = charge.amount_refunded === charge.amount;
      }
    }
    return refund;
  }

  /** The refunds of a charge, oldest first. */
  refundsOf(chargeId: string): FakeRefund[] {
    return [...this.refunds.values()].filter((r) => r.charge === chargeId);
  }

  /**
   * `POST /v1/refunds`'s parameters checked (those refused here are not saved under an
   * Idempotency-Key): `payment_intent` or `charge` of the account, a positive integer `amount`, a
   * known `reason`. A PaymentIntent's charge is its succeeded one (`latest_charge`).
   */
  private refundAsked(
    body: Record<string, unknown>,
    account: string | undefined,
  ): { charge: FakeCharge; params: FakeRefundParams } | RefundRefusal {
    const refuse = (status: number, message: string, details: Record<string, string> = {}) => ({
      status,
      error: { type: 'invalid_request_error', ...details, message },
    });
    const intentId = typeof body.payment_intent === 'string' ? body.payment_intent : undefined;
    const chargeId = typeof body.charge === 'string' ? body.charge : undefined;
    if (!intentId && !chargeId) {
      return refuse(
        400,
        'One of the following params should be provided for this request: payment_intent or charge.',
        { code: 'parameter_missing' },
      );
    }
    const amount = body.amount;
    if (amount !== undefined && (typeof amount !== 'string' || !/^[1-9]\d*$/.test(amount))) {
      return refuse(400, 'Invalid positive integer', {
        code: 'parameter_invalid_integer',
        param: 'amount',
      });
    }
    const reason = body.reason;
    if (reason !== undefined && (typeof reason !== 'string' || !REFUND_REASONS.includes(reason))) {
      return refuse(
        400,
        'Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer',
        { param: 'reason' },
      );
    }
    let charge: FakeCharge | undefined;
    if (intentId) {
      const intent = this.owned(this.intents, intentId, account);
      if (!intent) {
        return refuse(404, `No such payment_intent: '${intentId}'`, {
          code: 'resource_missing',
          param: 'payment_intent',
        });
      }
      charge = intent.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
      if (intent.status !== 'succeeded' || !charge) {
        return refuse(400, 'This PaymentIntent does not have a successful charge to refund.', {
          code: 'payment_intent_unexpected_state',
          param: 'payment_intent',
        });
      }
    }
    if (chargeId) {
      const named = this.owned(this.charges, chargeId, account);
      if (!named) {
        return refuse(404, `No such charge: '${chargeId}'`, {
          code: 'resource_missing',
          param: 'charge',
        });
      }
      if (charge && charge !== named) {
        return refuse(400, `The charge ${chargeId} is not the charge of ${intentId}.`, {
          param: 'charge',
        });
      }
      charge = named;
    }
    const metadata = body.metadata;
    return {
      charge: charge!,
      params: {
        amount: amount === undefined ? undefined : Number(amount),
        reason: (reason as FakeRefund['reason'] | undefined) ?? null,
        metadata:
          metadata && typeof metadata === 'object' ? (metadata as Record<string, string>) : {},
      },
    };
  }

  /**
   * A refund of `charge` (by default of what is left of it), or Stripe's refusal
   * (https://docs.stripe.com/error-codes): `charge_disputed` ("The charge you're attempting to
   * refund has been charged back"), `charge_already_refunded`, `charge_not_refundable` for a
   * boleto ("Boleto payments can't be refunded", https://docs.stripe.com/payments/boleto#refunds),
   * `amount_too_large` for more than is left (Refunds.d.ts: "This method will raise an error ...
   * when trying to refund more money than is left on a charge"). Made, it counts at once in the
   * charge's `amount_refunded` (pending or not) and `refunded` once all is refunded ("If the charge
   * is only partially refunded, this attribute will still be false", Charges.d.ts).
   */
  private makeRefund(charge: FakeCharge, params: FakeRefundParams): FakeRefund | RefundRefusal {
    const refuse = (code: string, message: string, param?: string): RefundRefusal => ({
      status: 400,
      error: { type: 'invalid_request_error', code, ...(param ? { param } : {}), message },
    });
    const type = charge.payment_method_details.type;
    if (charge.disputed) {
      return refuse(
        'charge_disputed',
        `Charge ${charge.id} has been charged back; cannot issue a refund.`,
      );
    }
    if (charge.refunded) {
      return refuse('charge_already_refunded', `Charge ${charge.id} has already been refunded.`);
    }
    if (type === 'boleto') {
      return refuse('charge_not_refundable', 'Boleto payments cannot be refunded.');
    }
    const left = charge.amount - charge.amount_refunded;
    const amount = params.amount ?? left;
    if (amount > left) {
      const money = (minor: number) =>
        `${charge.currency.toUpperCase()} ${(minor / 100).toFixed(2)}`;
      return refuse(
        'amount_too_large',
        `Refund amount (${money(amount)}) is greater than unrefunded amount on charge (${money(left)})`,
        'amount',
      );
    }
    const pending = type === 'pix';
    const refund: FakeRefund = {
      id: `re_${randomBytes(12).toString('hex')}`,
      object: 'refund',
      amount,
      balance_transaction: null,
      charge: charge.id,
      created: Math.floor(this.clock().getTime() / 1000),
      currency: charge.currency,
      customer: null,
      metadata: params.metadata ?? {},
      payment_intent: charge.payment_intent,
      payment_method: charge.payment_method,
      reason: params.reason ?? null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: pending ? 'pending' : 'succeeded',
      ...(pending ? { pending_reason: 'processing' as const } : {}),
      transfer_reversal: null,
    };
    this.refunds.set(refund.id, refund);
    const owner = this.owners.get(charge.id);
    if (owner) this.owners.set(refund.id, owner);
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    return refund;
  }

  /** The buyer disputes the payment with the card's issuer (charge.dispute.created follows). */
  dispute(sessionId: string): {
    id: string;
    object: 'dispute';
    charge: string;
    payment_intent: string;
  } {
    const charge = this.chargeOf(sessionId);
    charge.disputed = true;
    const id = `dp_${randomBytes(12).toString('hex')}`;
    const owner = this.owners.get(charge.id);
    if (owner) this.owners.set(id, owner);
    return { id, object: 'dispute', charge: charge.id, payment_intent: charge.payment_intent };
  }

  session(sessionId: string): FakeSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    return session;
  }

  /**
   * A webhook event as Stripe sends it, about a session, a charge, a dispute or an account. An
   * event of a connected account carries it as a top-level `account`
   * (https://docs.stripe.com/connect/webhooks): by default the account the object was created as;
   * `account` names one, or null for none. `previousAttributes` are an `*.updated` event's
   * `data.previous_attributes`.
   */
  event<T extends { id: string; object: string }>(
    type: string,
    object: T,
    options: { account?: string | null; previousAttributes?: Record<string, unknown> } = {},
  ): { id: string; body: string; account?: string } {
    const id = `evt_${randomBytes(12).toString('hex')}`;
    const account = options.account === undefined ? this.owners.get(object.id) : options.account;
    const event = {
      id,
      object: 'event',
      ...(account ? { account } : {}),
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      type,
      data: {
        object: { ...object },
        ...(options.previousAttributes ? { previous_attributes: options.previousAttributes } : {}),
      },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    };
    return account
      ? { id, body: JSON.stringify(event), account }
      : { id, body: JSON.stringify(event) };
  }

  /** The Stripe-Signature header of `body`, signed with `secret` at `timestamp` (seconds). */
  signature(body: string, options: { secret?: string; timestamp?: number } = {}): string {
    return Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: options.secret ?? this.webhookSecret,
      timestamp: options.timestamp,
    });
  }

  /**
   * Delivers a signed event to `endpoint` (the connector's webhook route); returns its answer.
   * A connected account's event is signed with the Connect endpoint's secret, others with the
   * account endpoint's, unless `secret` says otherwise.
   */
  async deliver(
    endpoint: string,
    event: { body: string; account?: string },
    options: { secret?: string; timestamp?: number; body?: string } = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const secret =
      options.secret ?? (event.account ? this.connectWebhookSecret : this.webhookSecret);
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': this.signature(event.body, { ...options, secret }),
      },
      body: options.body ?? event.body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
}

/** An issuer's authorization code, as card networks give it: six digits. */
function sixDigits(): string {
  return String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0');
}

function stripeError(
  res: Response,
  status: number,
  type: string,
  message: string,
  details: { code?: string; param?: string } = {},
): void {
  res.status(status).json(stripeErrorBody(type, message, details));
}

function stripeErrorBody(
  type: string,
  message: string,
  details: { code?: string; param?: string } = {},
): { error: Record<string, unknown> } {
  return { error: { type, ...details, message } };
}

function missing(res: Response, id: string, kind = 'checkout.session'): void {
  res.status(404).json({
    error: {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: `No such ${kind}: '${id}'`,
      param: 'id',
    },
  });
}

/** Leaves the hosted onboarding for `url` (302), or says `note` when the platform gave none. */
function leave(
  res: Response,
  url: string | null,
  note = 'Este link expirou ou já foi usado.',
): void {
  if (url) return res.redirect(302, url);
  res.type('html').send(page(note));
}

/** The hosted onboarding's small page. */
function page(title: string, body = ''): string {
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}
