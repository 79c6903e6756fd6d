import { randomBytes } from 'node:crypto';
import express, { type Response } from 'express';
import Stripe from 'stripe';
import { LoopbackFake } from './loopback-server';

/**
 * A small fake of Stripe's API on loopback, written from Stripe's public API reference for the
 * calls the connector makes: create, retrieve (with expand[]=payment_intent, and a level deeper
 * its latest_charge and payment_method) and expire a Checkout Session, Bearer-key auth,
 * Idempotency-Key replay and mismatch, Stripe's error shape. Test controls play the customer (pay
 * by card, Pix or boleto) and Stripe's webhooks, signed the way Stripe signs them (the SDK's test
 * header helper).
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
}

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
  payment_method: string | null;
  /** The method's details at the time of the charge: its `type`, and a hash named after it. */
  payment_method_details: { type: string; [details: string]: unknown };
}

export class FakeStripe extends LoopbackFake {
  readonly sessions = new Map<string, FakeSession>();
  readonly intents = new Map<string, FakeIntent>();
  readonly charges = new Map<string, FakeCharge>();
  readonly paymentMethods = new Map<string, FakePaymentMethod>();
  /** Every request received: method, path, and the parsed form body. */
  readonly requests: Array<{
    method: string;
    path: string;
    body: unknown;
    idempotencyKey?: string;
  }> = [];
  private readonly idempotent = new Map<string, { body: string; answer: unknown }>();

  constructor(
    readonly secretKey = 'sk_test_fake_0123456789',
    readonly webhookSecret = 'whsec_fake_0123456789',
  ) {
    super();
  }

  protected buildApp(): express.Express {
    const app = express();
    // Stripe's form encoding nests with brackets (line_items[0][price_data][currency], expand[0]).
    app.set('query parser', 'extended');
    app.use(express.urlencoded({ extended: true }));
    app.use((req, res, next) => {
      this.requests.push({
        method: req.method,
        path: req.path,
        body: req.body,
        idempotencyKey: req.header('idempotency-key'),
      });
      if (req.header('authorization') !== `Bearer ${this.secretKey}`) {
        return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided.');
      }
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
    app.post('/v1/checkout/sessions', (req, res) => {
      const key = req.header('idempotency-key');
      const body = JSON.stringify(req.body);
      const earlier = key ? this.idempotent.get(key) : undefined;
      if (earlier && earlier.body !== body) {
        return stripeError(
          res,
          400,
          'idempotency_error',
          'Keys for idempotent requests can only be used with the same parameters they were first used with.',
        );
      }
      if (earlier) return res.json(earlier.answer);
      const created = this.createSession(req.body as Record<string, unknown>);
      if ('error' in created) return stripeError(res, 400, 'invalid_request_error', created.error);
      if (key) this.idempotent.set(key, { body, answer: created });
      return res.json(created);
    });
    app.get('/v1/checkout/sessions/:id', (req, res) => {
      const session = this.sessions.get(req.params.id);
      if (!session) return missing(res, req.params.id);
      const expand = ([] as unknown[]).concat((req.query.expand as unknown) ?? []);
      const intent = session.payment_intent ? this.intents.get(session.payment_intent) : undefined;
      // expand[]=payment_intent, and a level deeper payment_intent.latest_charge and
      // payment_intent.payment_method (expanding a field of the intent expands the intent too).
      const charge = intent?.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
      const method = intent?.payment_method
        ? this.paymentMethods.get(intent.payment_method)
        : undefined;
      const deeper = (field: string) => expand.includes(`payment_intent.${field}`);
      const expandedIntent = intent && {
        ...intent,
        ...(deeper('latest_charge') && charge ? { latest_charge: charge } : {}),
        ...(deeper('payment_method') && method ? { payment_method: method } : {}),
      };
      const expanded =
        expand.includes('payment_intent') || deeper('latest_charge') || deeper('payment_method');
      return res.json(
        expanded && expandedIntent ? { ...session, payment_intent: expandedIntent } : session,
      );
    });
    // https://docs.stripe.com/api/payment_intents/retrieve
    app.get('/v1/payment_intents/:id', (req, res) => {
      const intent = this.intents.get(req.params.id);
      if (!intent) return missing(res, req.params.id, 'payment_intent');
      return res.json(intent);
    });
    app.post('/v1/checkout/sessions/:id/expire', (req, res) => {
      const session = this.sessions.get(req.params.id);
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

  private createSession(body: Record<string, unknown>): FakeSession | { error: string } {
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
    const now = Math.floor(Date.now() / 1000);
    const expiresAt = body.expires_at === undefined ? now + 86_400 : Number(body.expires_at);
    if (expiresAt < now + 1800 || expiresAt > now + 86_400) {
      return {
        error: 'The `expires_at` timestamp must be between 30 minutes and 24 hours from now.',
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
      payment_intent_metadata:
        (body.payment_intent_data as { metadata?: Record<string, string> } | undefined)?.metadata ??
        {},
    };
    this.sessions.set(id, session);
    return session;
  }

  /**
   * The customer pays: by card (paid at once) or by Pix or boleto (processing until `settle`),
   * with a PaymentMethod of that type attached to the intent.
   */
  pay(sessionId: string, method: 'card' | 'pix' | 'boleto' = 'card'): FakeSession {
    const session = this.session(sessionId);
    if (session.status !== 'open') throw new Error(`session ${sessionId} is ${session.status}`);
    // Checkout shows only the allowed types (when the session names some).
    const allowed = session.allowed_payment_method_types;
    if (allowed && !allowed.includes(method)) throw new Error(`${method} is not offered`);
    const paymentMethod: FakePaymentMethod = {
      id: `pm_${randomBytes(12).toString('hex')}`,
      object: 'payment_method',
      type: method,
      [method]: {},
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
    };
    this.intents.set(intent.id, intent);
    if (intent.status === 'succeeded') this.charge(intent);
    Object.assign(session, {
      status: 'complete',
      payment_status: method === 'card' ? 'paid' : 'unpaid',
      payment_intent: intent.id,
      url: null,
    });
    return session;
  }

  /** An asynchronous payment (Pix, boleto) succeeds or fails. */
  settle(sessionId: string, succeeded: boolean): FakeSession {
    const session = this.session(sessionId);
    const intent = this.intents.get(session.payment_intent ?? '');
    if (!intent) throw new Error(`session ${sessionId} has no payment`);
    intent.status = succeeded ? 'succeeded' : 'requires_payment_method';
    if (succeeded) {
      session.payment_status = 'paid';
      this.charge(intent);
    }
    return session;
  }

  private charge(intent: FakeIntent): FakeCharge {
    const type = this.paymentMethods.get(intent.payment_method ?? '')?.type ?? 'card';
    const charge: FakeCharge = {
      id: `ch_${randomBytes(12).toString('hex')}`,
      object: 'charge',
      payment_intent: intent.id,
      amount: intent.amount,
      amount_refunded: 0,
      refunded: false,
      disputed: false,
      currency: intent.currency,
      payment_method: intent.payment_method,
      payment_method_details: { type, [type]: {} },
    };
    this.charges.set(charge.id, charge);
    intent.latest_charge = charge.id;
    return charge;
  }

  /** The paid charge of a session (throws when it has none). */
  chargeOf(sessionId: string): FakeCharge {
    const intent = this.intents.get(this.session(sessionId).payment_intent ?? '');
    const charge = intent?.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    if (!charge) throw new Error(`session ${sessionId} has no charge`);
    return charge;
  }

  /** The shop refunds the payment in full from the dashboard (charge.refunded follows). */
  refund(sessionId: string): FakeCharge {
    const charge = this.chargeOf(sessionId);
    Object.assign(charge, { refunded: true, amount_refunded: charge.amount });
    return charge;
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
    return {
      id: `dp_${randomBytes(12).toString('hex')}`,
      object: 'dispute',
      charge: charge.id,
      payment_intent: charge.payment_intent,
    };
  }

  session(sessionId: string): FakeSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    return session;
  }

  /** A webhook event as Stripe sends it, about a session, a charge or a dispute. */
  event<T extends { id: string; object: string }>(
    type: string,
    object: T,
  ): { id: string; body: string } {
    const id = `evt_${randomBytes(12).toString('hex')}`;
    const event = {
      id,
      object: 'event',
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      type,
      data: { object: { ...object } },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    };
    return { id, body: JSON.stringify(event) };
  }

  /** The Stripe-Signature header of `body`, signed with `secret` at `timestamp` (seconds). */
  signature(body: string, options: { secret?: string; timestamp?: number } = {}): string {
    return Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: options.secret ?? this.webhookSecret,
      timestamp: options.timestamp,
    });
  }

  /** Delivers a signed event to the connector's webhook route; returns its answer. */
  async deliver(
    endpoint: string,
    event: { body: string },
    options: { secret?: string; timestamp?: number; body?: string } = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': this.signature(event.body, options),
      },
      body: options.body ?? event.body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
}

function stripeError(res: Response, status: number, type: string, message: string): void {
  res.status(status).json({ error: { type, message } });
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
