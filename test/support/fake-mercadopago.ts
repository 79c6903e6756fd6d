import { randomBytes, randomUUID } from 'node:crypto';
import express, { type Response } from 'express';
import { signNotification } from '../../src/payments/mercadopago/mercadopago-signature';
import { LoopbackFake } from './loopback-server';

/**
 * A small fake of Mercado Pago's API on loopback, written from its public reference for the
 * calls the connector makes: create a Checkout Pro preference (X-Idempotency-Key), read a
 * payment, search payments by external_reference; Bearer-token auth; its error shape. Test
 * controls play the customer (a payment with a status) and the notifications, signed as
 * Mercado Pago signs them (x-signature over `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`).
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
  transaction_details: { total_paid_amount: number; installment_amount: number };
  fee_details: Array<{ type: string; amount: number; fee_payer: string }>;
}

/**
 * A method of each payment type, where a test names none: one Mercado Pago's reference shows for
 * Brazil (a Mastercard, a Pix, a Bradesco boleto, the account's balance).
 */
const METHOD_OF_TYPE: Record<string, string> = {
  credit_card: 'master',
  bank_transfer: 'pix',
  ticket: 'bolbradesco',
  account_money: 'account_money',
};

export class FakeMercadoPago extends LoopbackFake {
  readonly preferences = new Map<string, FakePreference>();
  readonly payments = new Map<number, FakePayment>();
  readonly requests: Array<{ method: string; path: string; idempotencyKey?: string }> = [];
  private readonly idempotent = new Map<string, FakePreference>();
  private nextPaymentId = 1_300_000_001;

  constructor(
    readonly accessToken = 'TEST-1234567890-fake-access-token',
    readonly webhookSecret = 'fake-webhook-secret-0123456789',
  ) {
    super();
  }

  protected buildApp(): express.Express {
    const app = express();
    app.use(express.json());
    app.use((req, res, next) => {
      this.requests.push({
        method: req.method,
        path: req.path,
        idempotencyKey: req.header('x-idempotency-key'),
      });
      if (req.header('authorization') !== `Bearer ${this.accessToken}`) {
        return mpError(res, 401, 'unauthorized', 'invalid access token');
      }
      next();
    });
    // https://www.mercadopago.com.br/developers/en/reference/online-payments/checkout-pro/users/get
    app.get('/users/me', (_req, res) => {
      res.json({ id: 1_234_567_890, nickname: 'TESTFAKE', site_id: 'MLB', country_id: 'BR' });
    });
    app.post('/checkout/preferences', (req, res) => {
      const key = req.header('x-idempotency-key');
      const earlier = key ? this.idempotent.get(key) : undefined;
      if (earlier) return res.status(201).json(earlier);
      const body = req.body as Partial<FakePreference>;
      if (!body.items?.length) return mpError(res, 400, 'invalid_items', 'items needed');
      const id = `123456789-${randomUUID()}`;
      const preference = {
        ...body,
        id,
        init_point: `${this.url}/checkout/v1/redirect?pref_id=${id}`,
      } as FakePreference;
      this.preferences.set(id, preference);
      if (key) this.idempotent.set(key, preference);
      return res.status(201).json(preference);
    });
    app.put('/checkout/preferences/:id', (req, res) => {
      const preference = this.preferences.get(req.params.id);
      if (!preference) return mpError(res, 404, 'not_found', 'preference not found');
      Object.assign(preference, req.body as Partial<FakePreference>);
      return res.json(preference);
    });
    app.get('/v1/payments/search', (req, res) => {
      const reference = String(req.query.external_reference ?? '');
      const results = [...this.payments.values()]
        .filter((p) => p.external_reference === reference)
        .sort((a, b) => b.date_created.localeCompare(a.date_created) || b.id - a.id);
      res.json({ paging: { total: results.length, limit: 30, offset: 0 }, results });
    });
    app.get('/v1/payments/:id', (req, res) => {
      const payment = this.payments.get(Number(req.params.id));
      if (!payment) return mpError(res, 404, 'not_found', 'Payment not found');
      return res.json(payment);
    });
    app.use((_req, res) => mpError(res, 404, 'not_found', 'resource not found'));
    return app;
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
      Date.parse(preference.expiration_date_to) > Date.now()
    );
  }

  /**
   * The customer pays a preference: a payment with this status (approved, pending, rejected...),
   * of a payment type (credit_card by default; bank_transfer is Pix, ticket a boleto) and method
   * (`paymentMethod`, or one of the type: master, pix, bolbradesco) in `installments`, with `interest` (reais) of financing on top when the buyer pays some (Mercado
   * Pago keeps `transaction_amount` the price, adds the financing to
   * `transaction_details.total_paid_amount`, and lists it as a `financing_fee`). Checkout Pro
   * offers only the types the preference does not exclude, and at most its `installments`.
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
    const payment: FakePayment = {
      id: this.nextPaymentId++,
      status,
      status_detail: status === 'approved' ? 'accredited' : status,
      external_reference: preference.external_reference,
      transaction_amount: price,
      currency_id: item?.currency_id ?? 'BRL',
      date_created: new Date().toISOString(),
      payment_type_id: paymentType,
      payment_method_id: paymentMethod,
      installments,
      transaction_details: {
        total_paid_amount: total,
        installment_amount: Math.round((total / installments) * 100) / 100,
      },
      fee_details: how.interest
        ? [{ type: 'financing_fee', amount: how.interest, fee_payer: 'payer' }]
        : [],
    };
    this.payments.set(payment.id, payment);
    return payment;
  }

  /** A payment's status changes (a Pix is approved, a payment refunded...). */
  update(payment: FakePayment, status: string): FakePayment {
    payment.status = status;
    return payment;
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
    const body = {
      id: options.notificationId ?? Number(`1${randomBytes(4).readUInt32BE()}`),
      action: 'payment.updated',
      api_version: 'v1',
      data: { id: dataId },
      date_created: new Date().toISOString(),
      live_mode: false,
      type,
      user_id: '123456789',
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
}

function mpError(res: Response, status: number, error: string, message: string): void {
  res.status(status).json({ message, error, status, cause: [] });
}
