import { z } from 'zod';
import { AppError } from '../../errors';
import { secretMatcher } from '../../secrets/token-match';
import type { CreatedCheckouts } from '../created-checkouts';
import { minorOf, singleItemOf } from '../money';
import { payerOf } from '../payment-facts';
import {
  checkoutStatusOf,
  webhookHeader,
  type CheckoutRequest,
  type CreatedCheckout,
  type Payer,
  type PaymentProvider,
  type PaymentStatus,
  type RefundReason,
  type WebhookHint,
  type WebhookInput,
  REFUND_DESCRIPTIONS,
} from '../payment-provider';
import {
  offeredOptions,
  optionsFor,
  type PaymentMethod,
  type PaymentOptions,
} from '../payment-offer';
import { providerHttp, type ProviderCall } from '../provider-http';
import { feeTaken } from '../vendor-fee';
import { ASAAS_API, ASAAS_OFFER } from './asaas-api';
import { hintOfEvent } from './asaas-events';
import { groupByPlan, listSchema, planStatus, type Payment } from './asaas-payments';

export interface AsaasSettings {
  apiKey: string;
  /** The authToken registered with the webhook: Asaas sends it in `asaas-access-token`. */
  webhookToken: string;
  apiUrl?: string;
  /** A subaccount's: the vendor's wallet, where its fee is split to. */
  vendorWalletId?: string;
  created: CreatedCheckouts;
  payment?: PaymentOptions;
  timeoutMs?: number;
  clock?: () => Date;
}

const checkoutSchema = z.looseObject({ id: z.string().min(1), link: z.string().nullish() });

/** What Asaas says in an error answer: `{"errors": [{"code", "description"}]}`. */
function asaasMessage(body: unknown): string | undefined {
  const errors = (body as { errors?: Array<{ description?: unknown }> } | null)?.errors;
  const text = Array.isArray(errors)
    ? errors.map((error) => error.description).filter((d) => typeof d === 'string')
    : [];
  return text.length > 0 ? text.join('; ') : undefined;
}

/** Asaas limits an item's name to 30 characters. */
const ITEM_NAME_MAX = 30;

/**
 * Asaas Checkout: one checkout per connector checkout; the truth is its payments (`GET
 * /payments?checkoutSession=<id>`); webhooks are hints, authenticated by the webhook's token.
 */
export class AsaasProvider implements PaymentProvider {
  readonly name = 'asaas';
  private readonly call: ProviderCall;
  private readonly clock: () => Date;
  /** Whether `asaas-access-token` is the webhook's token (digests compared in constant time). */
  private readonly tokenMatches: (given: string | undefined) => boolean;

  constructor(private readonly settings: AsaasSettings) {
    this.clock = settings.clock ?? (() => new Date());
    this.tokenMatches = secretMatcher(settings.webhookToken);
    this.call = providerHttp({
      label: ASAAS_API.label,
      baseURL: settings.apiUrl ?? ASAAS_API.production,
      timeoutMs: settings.timeoutMs ?? 20_000,
      // Asaas refuses calls without a User-Agent.
      headers: { access_token: settings.apiKey, 'user-agent': 'checkout-connector' },
      messageOf: asaasMessage,
    });
  }

  async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
    const earlier = await this.settings.created.find(request.checkoutId);
    if (earlier) return earlier;
    const checkout = await this.call(
      'create the checkout',
      { method: 'POST', url: '/checkouts', data: this.checkoutData(request) },
      checkoutSchema,
    );
    const created = { providerRef: checkout.id, url: checkout.link || this.linkOf(checkout.id) };
    const kept = await this.settings.created.keep(request.checkoutId, created, request.expiresAt);
    // Another run made one first: that one was handed out, this one is closed.
    if (kept.providerRef !== created.providerRef) {
      await this.cancelCheckout({ providerRef: created.providerRef }).catch(() => undefined);
    }
    return kept;
  }

  private checkoutData(request: CheckoutRequest): Record<string, unknown> {
    const minutes = Math.ceil((request.expiresAt.getTime() - this.clock().getTime()) / 60_000);
    const charge = chargeOf(
      optionsFor(this.settings.payment ?? offeredOptions(ASAAS_OFFER), request.methods),
    );
    const item = singleItemOf(request);
    return {
      ...charge,
      ...this.splitsOf(request, charge.chargeTypes),
      minutesToExpire: Math.max(1, minutes),
      externalReference: request.checkoutId,
      callback: {
        successUrl: request.returnUrl,
        cancelUrl: request.cancelUrl,
        expiredUrl: request.cancelUrl,
      },
      items: [
        {
          name: request.description.slice(0, ITEM_NAME_MAX),
          description: item.description,
          quantity: 1,
          value: item.value,
        },
      ],
    };
  }

  /**
   * The vendor's fee as a split to its wallet ("Checkout com Split de Pagamento"): a fixed value
   * of a single payment, or, where the customer may pay in installments, the total across them
   * (`totalFixedValue`, which Asaas shares among the installments).
   */
  private splitsOf(
    request: CheckoutRequest,
    chargeTypes: string[],
  ): { splits?: Array<Record<string, unknown>> } {
    const walletId = this.settings.vendorWalletId;
    const fee = feeTaken(
      request.vendorFee,
      walletId !== undefined,
      "Asaas takes the vendor's fee only from a subaccount the vendor's account created.",
    );
    if (fee === 0 || walletId === undefined) return {};
    const value = fee / 100;
    const installments = chargeTypes.includes('INSTALLMENT');
    return {
      splits: [
        {
          walletId,
          ...(installments ? { totalFixedValue: value } : { fixedValue: value }),
          description: "The ERP vendor's fee",
          externalReference: request.checkoutId,
        },
      ],
    };
  }

  /** The customer's page of a checkout, when Asaas's answer carries no link. */
  private linkOf(id: string): string {
    const sandbox = /api-sandbox\.asaas\.com/.test(this.settings.apiUrl ?? '');
    const host = sandbox ? 'https://sandbox.asaas.com' : 'https://asaas.com';
    return `${host}/checkoutSession/show?id=${encodeURIComponent(id)}`;
  }

  /** GET /finance/balance: a harmless read that only a valid key may make. */
  async verifyCredentials(): Promise<void> {
    await this.call(
      'read the account balance',
      { method: 'GET', url: '/finance/balance' },
      z.looseObject({}),
    );
  }

  async getStatus(ref: { providerRef: string }): Promise<PaymentStatus> {
    const { status, plan } = await this.planOf(ref);
    return this.withPayer(await this.withPixE2e(status, plan), plan);
  }

  /**
   * The checkout's payment, as its status and its plan. A card in installments is one payment
   * per installment, all of one plan: the plan is the payment. A paid one wins, then one under
   * way (a Pix waiting, a card in analysis).
   */
  private async planOf(ref: { providerRef: string }): Promise<{
    status: PaymentStatus;
    plan: Payment[] | undefined;
  }> {
    const found = await this.call(
      'list the checkout payments',
      { method: 'GET', url: '/payments', params: { checkoutSession: ref.providerRef, limit: 100 } },
      listSchema,
    );
    const plans = [...groupByPlan(found.data.filter((p) => !p.deleted)).values()];
    const statuses = plans.map(planStatus);
    const status = checkoutStatusOf(statuses);
    return { status, plan: plans[statuses.indexOf(status)] };
  }

  /**
   * A settled payment's payer: the customer it names (GET /v3/customers/{id}: `name`,
   * `cpfCnpj`), the person Asaas's checkout registered as paying (a customer deleted since still
   * paid). Left out when that read fails or names no one: a receipt's detail never holds a paid
   * checkout.
   */
  private async withPayer(status: PaymentStatus, plan?: Payment[]): Promise<PaymentStatus> {
    const customer = plan?.[0]?.customer;
    if (!status.settlement || !customer) return status;
    const payer = await this.payerOf(customer);
    return payer ? { ...status, settlement: { ...status.settlement, payer } } : status;
  }

  /**
   * A customer as the payer, read once a process (a payer does not change; the Pix watch reads a
   * paid checkout for months): the last PAYERS_KEPT read are kept; a failed read is not.
   */
  private async payerOf(customer: string): Promise<Payer | undefined> {
    const known = this.payers.get(customer);
    if (known) return known;
    const read = await this.call(
      'read the customer',
      { method: 'GET', url: `/customers/${encodeURIComponent(customer)}` },
      customerSchema,
    ).catch(() => undefined);
    const { payer } = read ? payerOf(read.name, read.cpfCnpj) : {};
    if (!payer) return undefined;
    if (this.payers.size >= PAYERS_KEPT) this.payers.delete(this.payers.keys().next().value ?? '');
    this.payers.set(customer, payer);
    return payer;
  }

  private readonly payers = new Map<string, Payer>();

  /**
   * A settled Pix's end-to-end id, from its `pixTransaction` (GET /v3/pix/transactions/{id},
   * `endToEndIdentifier`). Left out when that read fails or answers no id of the Central Bank's
   * shape: a receipt's detail never holds a paid checkout.
   */
  private async withPixE2e(status: PaymentStatus, plan?: Payment[]): Promise<PaymentStatus> {
    const payment = plan?.length === 1 ? plan[0] : undefined;
    const transaction = payment?.pixTransaction;
    if (!status.settlement || status.method !== 'pix' || !payment || !transaction) return status;
    const read = await this.call(
      'read the Pix transaction',
      { method: 'GET', url: `/pix/transactions/${encodeURIComponent(transaction)}` },
      pixTransactionSchema,
    ).catch(() => undefined);
    const e2e = read?.endToEndIdentifier;
    const ours = !read?.payment || read.payment === payment.id;
    if (!ours || !e2e || !E2E_ID.test(e2e)) return status;
    return { ...status, settlement: { ...status.settlement, pixE2e: e2e } };
  }

  /**
   * The checkout's paid payment given back in full: each payment of its plan (a card's
   * installments, or the one payment) still holding money, what is left of it
   * (POST /v3/payments/{id}/refund with its `value`: without one Asaas refunds the whole charge,
   * refused once part of it was). Asaas takes no idempotency key: what is left is read first, so
   * asking again asks only what is still there. None paid, nothing; a Pix Asaas holds
   * (CONFIRMED) is not paid yet.
   */
  async refundPayment(
    ref: { providerRef: string; checkoutId: string },
    reason: RefundReason,
  ): Promise<string | undefined> {
    const { status, plan } = await this.planOf(ref);
    const id = status.transactionId;
    if ((status.state !== 'paid' && status.state !== 'refunded') || !plan || !id) return undefined;
    const holding = plan.flatMap((payment) => {
      const left = leftToRefund(payment);
      return left > 0 && REFUNDABLE.has(payment.status) ? [{ payment, left }] : [];
    });
    if (holding.length === 0)
      return status.state === 'refunded' ? `refunded at Asaas (${id})` : undefined;
    for (const { payment, left } of holding) {
      await this.call(
        'refund the payment',
        {
          method: 'POST',
          url: `/payments/${encodeURIComponent(payment.id)}/refund`,
          data: { value: left / 100, description: REFUND_DESCRIPTIONS[reason] },
        },
        z.looseObject({}),
      );
    }
    return `refund asked at Asaas (${id})`;
  }

  /** Closes the checkout; Asaas's refusal of one no longer active means nothing to close. */
  async cancelCheckout(ref: { providerRef: string }): Promise<void> {
    try {
      await this.call(
        'cancel the checkout',
        { method: 'POST', url: `/checkouts/${encodeURIComponent(ref.providerRef)}/cancel` },
        z.unknown(),
      );
    } catch (error) {
      const status = error instanceof AppError ? error.upstreamStatus : undefined;
      if (status === 400 || status === 404 || status === 409) return;
      throw error;
    }
  }

  async parseWebhook(input: WebhookInput): Promise<WebhookHint> {
    if (!this.tokenMatches(webhookHeader(input, 'asaas-access-token'))) {
      throw new AppError(
        'WEBHOOK_SIGNATURE_INVALID',
        "The asaas-access-token header is missing or is not the webhook's token.",
      );
    }
    return hintOfEvent(input.rawBody);
  }
}

/** Asaas's billing type of each method it offers (its Checkout has no boleto). */
const BILLING_TYPES: Partial<Record<PaymentMethod, string>> = { pix: 'PIX', card: 'CREDIT_CARD' };

/** A checkout's `billingTypes` and `chargeTypes` (with `installment` when a card may be split). */
function chargeOf(options: PaymentOptions): {
  billingTypes: string[];
  chargeTypes: string[];
  installment?: { maxInstallmentCount: number };
} {
  const billingTypes = options.methods.flatMap((method) => BILLING_TYPES[method] ?? []);
  const split = options.maxInstallments > 1 && options.methods.includes('card');
  return {
    billingTypes,
    chargeTypes: split ? ['DETACHED', 'INSTALLMENT'] : ['DETACHED'],
    ...(split ? { installment: { maxInstallmentCount: options.maxInstallments } } : {}),
  };
}

const pixTransactionSchema = z.looseObject({
  endToEndIdentifier: z.string().nullish(),
  payment: z.string().nullish(),
});

/** The Central Bank's end-to-end id of a Pix: `E`, the ISPB, date and time, a sequence (32). */
const E2E_ID = /^E[0-9A-Za-z]{31}$/;

/** The statuses of a payment whose money may be given back (a card's CONFIRMED too). */
const REFUNDABLE: ReadonlySet<string> = new Set(['RECEIVED', 'CONFIRMED']);

/** Centavos of a payment not yet refunded: its value less its refunds not cancelled. */
function leftToRefund(payment: Payment): number {
  const refunded = (payment.refunds ?? [])
    .filter((refund) => refund.status !== 'CANCELLED')
    .reduce((sum, refund) => sum + minorOf(refund.value ?? 0), 0);
  return minorOf(payment.value) - refunded;
}

/** The payers an adapter keeps, by customer: the oldest read leaves first. */
const PAYERS_KEPT = 1000;

/** A customer (docs.asaas.com, "Retrieve a single customer"): the fields the payer is read from. */
const customerSchema = z.looseObject({
  name: z.string().nullish().catch(undefined),
  cpfCnpj: z.string().nullish().catch(undefined),
});
