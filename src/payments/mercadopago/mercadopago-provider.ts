import { z } from 'zod';
import { AppError } from '../../errors';
import { minorOf } from '../money';
import {
  checkoutStatusOf,
  webhookHeader,
  type CheckoutRequest,
  type CreatedCheckout,
  type PaidWith,
  type PaymentProvider,
  type PaymentState,
  type PaymentStatus,
  type Settlement,
  type WebhookHint,
  type WebhookInput,
} from '../payment-provider';
import { PAYMENT_METHODS, type PaymentMethod, type PaymentOptions } from '../payment-offer';
import { providerHttp, type ProviderCall } from '../provider-http';
import { feeTaken } from '../vendor-fee';
import { MERCADOPAGO_API } from './mercadopago-api';
import { verifyNotification } from './mercadopago-signature';

export interface MercadoPagoSettings {
  accessToken: string;
  webhookSecret: string;
  /** The API's base URL (its descriptor resolves it); Mercado Pago's own when absent. */
  apiUrl?: string;
  /** Where Mercado Pago posts notifications: PUBLIC_URL/webhooks/mercadopago. */
  notificationUrl: string;
  /** How the customer may pay: Checkout Pro's `payment_methods`. */
  payment?: PaymentOptions;
  /**
   * The token is a seller's, from the vendor's application's OAuth: a preference may carry the
   * vendor's `marketplace_fee` (Mercado Pago's marketplace, "Split payments").
   */
  marketplace?: boolean;
  timeoutMs?: number;
  clock?: () => Date;
}

/** Mercado Pago's payment statuses, as docs/payment-providers.md maps them. */
// A Map, not an object: a status named like an Object property (`constructor`) is unknown.
const STATES = new Map<string, PaymentState>(
  Object.entries({
    approved: 'paid',
    pending: 'processing',
    in_process: 'processing',
    authorized: 'processing',
    rejected: 'failed',
    cancelled: 'canceled',
    refunded: 'refunded',
    charged_back: 'charged_back',
  }),
);

const paymentSchema = z.looseObject({
  id: z.union([z.number(), z.string()]).transform(String),
  status: z.string(),
  status_detail: z.string().nullish(),
  external_reference: z.string().nullish(),
  transaction_amount: z.number().nullish(),
  currency_id: z.string().nullish(),
  /** The kind of method the buyer paid with (credit_card, bank_transfer, ticket...). */
  payment_type_id: z.string().nullish(),
  /** The method itself (visa, master, pix, bolbradesco...). */
  payment_method_id: z.string().nullish(),
  /**
   * What the buyer paid in all (the price plus the financing of installments), and the
   * collector's "Net amount received". The settlement's figures below are read leniently: one
   * Mercado Pago writes in an unexpected shape is left out of the settlement (absent, never
   * guessed) rather than failing the whole read of the payment's status.
   */
  transaction_details: z
    .looseObject({
      total_paid_amount: z.number().nullish(),
      net_received_amount: z.number().nullish().catch(undefined),
    })
    .nullish(),
  /** Each fee on the payment: its `type`, `amount` and `fee_payer` (collector or payer). */
  fee_details: z
    .array(
      z.looseObject({
        type: z.string().nullish(),
        amount: z.number().nullish(),
        fee_payer: z.string().nullish().catch(undefined),
      }),
    )
    .nullish(),
  /** "Number of installments selected." */
  installments: z.number().int().positive().nullish().catch(undefined),
  /** When the money is available to the collector: an ISO date-time with Mercado Pago's offset. */
  money_release_date: z.string().nullish().catch(undefined),
});
type Payment = z.output<typeof paymentSchema>;

const preferenceSchema = z.looseObject({ id: z.string(), init_point: z.string().min(1) });
const searchSchema = z.looseObject({ results: z.array(paymentSchema) });

/** Mercado Pago's payment types of each method (`payment_type_id`). */
const PAYMENT_TYPES: Record<PaymentMethod, string[]> = {
  pix: ['bank_transfer'],
  card: ['credit_card', 'debit_card', 'prepaid_card'],
  boleto: ['ticket', 'atm'],
};

/**
 * How a payment was made, from its `payment_type_id` (Mercado Pago's reference, "Get payment" and
 * "Get payment methods": credit_card, debit_card, prepaid_card; bank_transfer is Pix or PSE,
 * told apart by `payment_method_id`; ticket is a boleto or another slip paid in cash). Any other
 * type (account_money, digital_currency, atm...) is none of the three: no method.
 */
function methodOf(payment: Payment): PaidWith | undefined {
  switch (payment.payment_type_id) {
    case 'credit_card':
    case 'debit_card':
    case 'prepaid_card':
      return 'card';
    case 'bank_transfer':
      return payment.payment_method_id === 'pix' ? 'pix' : undefined;
    case 'ticket':
      return 'boleto';
    default:
      return undefined;
  }
}

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
    const now = this.clock();
    const preference = await this.call(
      'create the preference',
      {
        method: 'POST',
        url: '/checkout/preferences',
        headers: { 'x-idempotency-key': `checkout:${request.checkoutId}` },
        data: {
          items: [
            {
              id: String(request.serviceId),
              title: request.description,
              description: request.lines
                .map((line) => line.label)
                .join('; ')
                .slice(0, 250),
              quantity: 1,
              unit_price: request.amount.amountMinor / 100,
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
            ? { payment_methods: paymentMethodsOf(this.settings.payment) }
            : {}),
          expires: true,
          expiration_date_from: brasiliaIso(now),
          expiration_date_to: brasiliaIso(request.expiresAt),
        },
      },
      preferenceSchema,
    );
    return { providerRef: preference.id, url: preference.init_point };
  }

  /** The vendor's fee, in reais, on a connected seller's preference. */
  private marketplaceFee(request: CheckoutRequest): { marketplace_fee?: number } {
    const fee = feeTaken(
      request.vendorFee,
      this.settings.marketplace === true,
      "Mercado Pago takes the vendor's fee only from an account connected by OAuth.",
    );
    return fee === 0 ? {} : { marketplace_fee: fee / 100 };
  }

  /** GET /users/me: the account the access token belongs to. */
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

  /** Ends the preference now, so the customer can no longer pay it. */
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

function paymentStatus(payment: Payment): PaymentStatus {
  const state = STATES.get(payment.status) ?? 'pending';
  const currency = payment.currency_id ?? 'BRL';
  // What the buyer paid: total_paid_amount (the price plus the financing of installments), or
  // the price when Mercado Pago gives no total; the financing is the fees of type financing_fee.
  const paid = payment.transaction_details?.total_paid_amount ?? payment.transaction_amount;
  const financing = feesMinor(payment, 'financing_fee') ?? 0;
  const reason =
    state === 'failed' || state === 'canceled' || state === 'refunded' || state === 'charged_back'
      ? `payment ${payment.status} at Mercado Pago`
      : undefined;
  const method = methodOf(payment);
  const settlement = SETTLED.has(state) ? settlementOf(payment, method, currency) : undefined;
  return {
    state,
    transactionId: payment.id,
    ...(method ? { method } : {}),
    ...(paid === null || paid === undefined
      ? {}
      : { amount: { amountMinor: minorOf(paid), currency } }),
    ...(financing > 0 ? { interest: { amountMinor: financing, currency } } : {}),
    ...(settlement ? { settlement } : {}),
    reason,
  };
}

/** The states of a payment whose money was settled (and stays told after it went back). */
const SETTLED: ReadonlySet<PaymentState> = new Set(['paid', 'refunded', 'charged_back']);

/**
 * The centavos of the payment's fees of this `type` (and `fee_payer`, when given), summed; undefined
 * when Mercado Pago lists none. Each amount is converted on its own, as `minorOf` does (reais with
 * two decimals to an integer, rounded: no float error carried into a sum).
 */
function feesMinor(payment: Payment, type: string, payer?: string): number | undefined {
  const fees = (payment.fee_details ?? []).filter(
    (fee) =>
      fee.type === type &&
      (payer === undefined || fee.fee_payer === payer) &&
      typeof fee.amount === 'number',
  );
  return fees.length ? fees.reduce((sum, fee) => sum + minorOf(fee.amount ?? 0), 0) : undefined;
}

/**
 * What Mercado Pago reports of a settled payment's money, for the ERP's payment record; each
 * figure absent when the payment does not say it. From "Get payment" (GET /v1/payments/{id}; the
 * search returns the same objects):
 * https://www.mercadopago.com.br/developers/en/reference/online-payments/checkout-pro-preferences/get-payment/get
 *
 * - providerFee: the `fee_details` of type `mercadopago_fee` ("Cost for using Mercado Pago") the
 *   collector pays (`fee_payer` collector, "The seller absorbs the cost"). Not `application_fee`
 *   ("Marketplace comision for the service": the vendor's `marketplace_fee`), nor `financing_fee`
 *   paid by the payer (the buyer's interest, told as `interest`).
 * - net: `transaction_details.net_received_amount` ("Net amount received"): what reaches the
 *   seller; of a marketplace's payment, Mercado Pago takes its commission first and the
 *   marketplace's from what remains (Split payments, "Integrate checkout"):
 *   https://www.mercadopago.com.br/developers/en/docs/split-payments/integration-configuration/integrate-marketplace
 * - releaseDate: `money_release_date`, "Date on which the payment is settled and the money is made
 *   available in the Mercado Pago account of the Collector" (see `releaseDateOf`).
 * - installments: `installments`, "Number of installments selected" (see `installmentsOf`).
 * - pixE2e: never. Mercado Pago's payment reference documents no Pix end-to-end id:
 *   `point_of_interaction.transaction_data` has the QR code (`qr_code`, `qr_code_base64`) and
 *   `ticket_url`, `transaction_details` no identifier of the Pix. Its SDKs' types also carry
 *   `transaction_data.transaction_id` and `bank_transfer_id`, which no reference says is the
 *   end-to-end id: neither is taken for one.
 */
function settlementOf(
  payment: Payment,
  method: PaidWith | undefined,
  currency: string,
): Settlement | undefined {
  const providerFee = feesMinor(payment, 'mercadopago_fee', 'collector');
  const net = payment.transaction_details?.net_received_amount;
  const settlement: Settlement = {
    ...(providerFee === undefined ? {} : { providerFee: { amountMinor: providerFee, currency } }),
    ...(net === null || net === undefined ? {} : { net: { amountMinor: minorOf(net), currency } }),
    ...releaseDateOf(payment.money_release_date),
    ...installmentsOf(payment, method),
  };
  return Object.keys(settlement).length > 0 ? settlement : undefined;
}

/**
 * The day of `money_release_date`, its calendar date as Mercado Pago wrote it: the payment's
 * date-times carry Mercado Pago's own offset (`2018-03-07T10:07:15.000-04:00` in its payments),
 * and the date is taken as written, not converted to UTC or to Brasília time, either of which
 * could move it to the next day. Anything but a date-time of a real day is left out.
 */
function releaseDateOf(written: string | null | undefined): { releaseDate?: string } {
  const day = /^(\d{4}-\d{2}-\d{2})(?:T|$)/.exec(written ?? '')?.[1];
  if (!day) return {};
  const real = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(real.getTime()) && real.toISOString().startsWith(day)
    ? { releaseDate: day }
    : {};
}

/**
 * The installments the buyer chose: a card's `installments` as Mercado Pago reports it; a Pix or a
 * boleto is paid at once (1, as Mercado Pago reports them too); another way of paying (the
 * account's balance) as reported.
 */
function installmentsOf(payment: Payment, method: PaidWith | undefined): { installments?: number } {
  if (method === 'pix' || method === 'boleto') return { installments: 1 };
  return payment.installments ? { installments: payment.installments } : {};
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
