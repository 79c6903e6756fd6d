import { z } from 'zod';
import { AppError } from '../../errors';
import {
  checkoutStatusOf,
  webhookHeader,
  type CheckoutRequest,
  type CreatedCheckout,
  type PaymentProvider,
  type PaymentStatus,
  type WebhookHint,
  type WebhookInput,
} from '../payment-provider';
import { singleItemOf } from '../money';
import {
  offeredOptions,
  optionsFor,
  PAYMENT_METHODS,
  type PaymentMethod,
  type PaymentOptions,
} from '../payment-offer';
import { providerHttp, type ProviderCall } from '../provider-http';
import { feeTaken } from '../vendor-fee';
import { MERCADOPAGO_API, MERCADOPAGO_OFFER } from './mercadopago-api';
import { paymentSchema, paymentStatus, searchSchema } from './mercadopago-payments';
import { verifyNotification } from './mercadopago-signature';

export interface MercadoPagoSettings {
  accessToken: string;
  webhookSecret: string;
  apiUrl?: string;
  /** Where Mercado Pago posts notifications: PUBLIC_URL/webhooks/mercadopago. */
  notificationUrl: string;
  payment?: PaymentOptions;
  /**
   * The token is a seller's, from the vendor's application's OAuth: a preference may carry the
   * vendor's `marketplace_fee` (Mercado Pago's marketplace, "Split payments").
   */
  marketplace?: boolean;
  timeoutMs?: number;
  clock?: () => Date;
}

const preferenceSchema = z.looseObject({ id: z.string(), init_point: z.string().min(1) });

/** Mercado Pago's payment types of each method (`payment_type_id`). */
const PAYMENT_TYPES: Record<PaymentMethod, string[]> = {
  pix: ['bank_transfer'],
  card: ['credit_card', 'debit_card', 'prepaid_card'],
  boleto: ['ticket', 'atm'],
};

/**
 * Checkout Pro's `payment_methods`: the types of the methods not chosen excluded, and the most
 * installments a card payment may be split into. Mercado Pago's balance (`account_money`) is
 * none of the three methods and stays offered.
 */
function paymentMethodsOf(options: PaymentOptions): {
  excluded_payment_types: Array<{ id: string }>;
  installments: number;
} {
  const excluded = PAYMENT_METHODS.filter((method) => !options.methods.includes(method)).flatMap(
    (method) => PAYMENT_TYPES[method],
  );
  return {
    excluded_payment_types: excluded.map((id) => ({ id })),
    installments: options.maxInstallments,
  };
}

/** Mercado Pago's `YYYY-MM-DDTHH:mm:ss.sss-03:00`: Brasília time, as its docs show dates. */
function brasiliaIso(date: Date): string {
  return `${new Date(date.getTime() - 3 * 3_600_000).toISOString().replace('Z', '')}-03:00`;
}

/**
 * Mercado Pago Checkout Pro: one preference per checkout, the customer sent to its init_point.
 * A small axios client, because the official SDK hard-codes its API host and so could never
 * reach a loopback fake in tests.
 */
export class MercadoPagoProvider implements PaymentProvider {
  readonly name = 'mercadopago';
  readonly latePaymentNote =
    'Mercado Pago refunds a Pix paid after its checkout closed by itself: see the payment in its dashboard before refunding by hand';
  private readonly call: ProviderCall;
  private readonly clock: () => Date;

  constructor(private readonly settings: MercadoPagoSettings) {
    this.clock = settings.clock ?? (() => new Date());
    this.call = providerHttp({
      label: MERCADOPAGO_API.label,
      baseURL: settings.apiUrl ?? MERCADOPAGO_API.production,
      timeoutMs: settings.timeoutMs ?? 20_000,
      headers: { authorization: `Bearer ${settings.accessToken}` },
      messageOf: (body) => {
        const message = (body as { message?: unknown } | null)?.message;
        return typeof message === 'string' ? message : undefined;
      },
    });
  }

  async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
    const preference = await this.call(
      'create the preference',
      {
        method: 'POST',
        url: '/checkout/preferences',
        headers: { 'x-idempotency-key': `checkout:${request.checkoutId}` },
        data: this.preferenceOf(request),
      },
      preferenceSchema,
    );
    return { providerRef: preference.id, url: preference.init_point };
  }

  private preferenceOf(request: CheckoutRequest): Record<string, unknown> {
    const now = this.clock();
    const item = singleItemOf(request);
    return {
      items: [
        {
          id: String(request.serviceId),
          title: request.description,
          description: item.description,
          quantity: 1,
          unit_price: item.value,
          currency_id: request.amount.currency,
        },
      ],
      external_reference: request.checkoutId,
      metadata: { checkout_id: request.checkoutId, service_id: request.serviceId },
      back_urls: {
        success: request.returnUrl,
        pending: request.returnUrl,
        failure: request.cancelUrl,
      },
      auto_return: 'approved',
      notification_url: this.settings.notificationUrl,
      ...this.marketplaceFee(request),
      ...(this.settings.payment
        ? { payment_methods: paymentMethodsOf(optionsFor(this.settings.payment, request.methods)) }
        : request.methods
          ? {
              payment_methods: paymentMethodsOf(
                optionsFor(offeredOptions(MERCADOPAGO_OFFER), request.methods),
              ),
            }
          : {}),
      expires: true,
      expiration_date_from: brasiliaIso(now),
      expiration_date_to: brasiliaIso(request.expiresAt),
    };
  }

  private marketplaceFee(request: CheckoutRequest): { marketplace_fee?: number } {
    const fee = feeTaken(
      request.vendorFee,
      this.settings.marketplace === true,
      "Mercado Pago takes the vendor's fee only from an account connected by OAuth.",
    );
    return fee === 0 ? {} : { marketplace_fee: fee / 100 };
  }

  async verifyCredentials(): Promise<void> {
    await this.call('read its account', { method: 'GET', url: '/users/me' }, z.looseObject({}));
  }

  async getStatus(ref: { checkoutId: string }): Promise<PaymentStatus> {
    const found = await this.call(
      'search the payments',
      {
        method: 'GET',
        url: '/v1/payments/search',
        params: { external_reference: ref.checkoutId, sort: 'date_created', criteria: 'desc' },
      },
      searchSchema,
    );
    // Checkout Pro lets a customer whose card was refused try again on the same page: an
    // approved attempt wins, then one under way; refused ones alone leave the checkout payable
    // (it ends at its expiry, which closes the preference first).
    return checkoutStatusOf(found.results.map(paymentStatus));
  }

  /**
   * The checkout's approved payment refunded in full (POST /v1/payments/{id}/refunds, "Create
   * refund"), keyed by the payment (X-Idempotency-Key): a retry is the same refund, whatever its
   * reason. A payment already refunded asks nothing; none paid, nothing.
   */
  async refundPayment(ref: {
    providerRef: string;
    checkoutId: string;
  }): Promise<string | undefined> {
    const status = await this.getStatus(ref);
    if (status.state === 'refunded')
      return `refunded at Mercado Pago (payment ${status.transactionId})`;
    if (status.state !== 'paid' || !status.transactionId) return undefined;
    const refund = await this.call(
      'refund the payment',
      {
        method: 'POST',
        url: `/v1/payments/${encodeURIComponent(status.transactionId)}/refunds`,
        // Keyed by the payment: one is given back once, whatever asks it.
        headers: { 'x-idempotency-key': `refund:${status.transactionId}` },
        data: {},
      },
      z.looseObject({ id: z.union([z.number(), z.string()]).transform(String) }),
    );
    return `refund asked at Mercado Pago (refund ${refund.id} of payment ${status.transactionId})`;
  }

  async cancelCheckout(ref: { providerRef: string }): Promise<void> {
    await this.call(
      'close the preference',
      {
        method: 'PUT',
        url: `/checkout/preferences/${encodeURIComponent(ref.providerRef)}`,
        data: { expires: true, expiration_date_to: brasiliaIso(this.clock()) },
      },
      preferenceSchema,
    );
  }

  async parseWebhook(input: WebhookInput): Promise<WebhookHint> {
    const body = parseJson(input.rawBody);
    const type = String(input.query.type ?? input.query.topic ?? body?.type ?? '');
    const dataId = String(input.query['data.id'] ?? body?.data?.id ?? '');
    const requestId = webhookHeader(input, 'x-request-id') ?? '';
    const signed = verifyNotification(
      this.settings.webhookSecret,
      webhookHeader(input, 'x-signature'),
      { dataId, requestId },
      this.clock().getTime(),
    );
    if (!signed || !dataId || !requestId) {
      throw new AppError(
        'WEBHOOK_SIGNATURE_INVALID',
        'The x-signature does not verify (wrong secret, altered data.id or request id, or a stale ts).',
      );
    }
    if (type !== 'payment') return { ignore: `topic ${type || '(none)'} is not used` };
    // A hint only: read the payment itself to learn which checkout it belongs to.
    const payment = await this.call(
      'read the payment',
      { method: 'GET', url: `/v1/payments/${encodeURIComponent(dataId)}` },
      paymentSchema,
    );
    if (!payment.external_reference) return { ignore: 'payment without an external_reference' };
    const eventId = String(body?.id ?? `${dataId}:${requestId}`);
    return { checkoutId: payment.external_reference, eventId };
  }
}

function parseJson(
  raw: Buffer,
): { id?: unknown; type?: unknown; data?: { id?: unknown } } | undefined {
  try {
    return JSON.parse(raw.toString('utf8')) as {
      id?: unknown;
      type?: unknown;
      data?: { id?: unknown };
    };
  } catch {
    return undefined;
  }
}
