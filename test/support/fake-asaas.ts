import { randomBytes, randomUUID } from 'node:crypto';
import express, { type Response } from 'express';
import { LoopbackFake } from './loopback-server';

/**
 * A small fake of Asaas's API v3 on loopback, written from its public reference (docs.asaas.com)
 * for the calls the connector makes: create a checkout (`POST /v3/checkouts`: billingTypes PIX and
 * CREDIT_CARD, chargeTypes DETACHED and INSTALLMENT with installment.maxInstallmentCount, items
 * whose name is at most 30 characters, minutesToExpire, callback), cancel it
 * (`POST /v3/checkouts/{id}/cancel`, only while ACTIVE), list payments (`GET /v3/payments`, filtered
 * by checkoutSession or externalReference, Asaas's list shape), read the balance; `access_token`
 * auth and Asaas's error shape (`{"errors": [{"code", "description"}]}`). Test controls play the
 * customer (a Pix, a card in installments) and Asaas's webhooks, which carry the webhook's token
 * in the `asaas-access-token` header.
 */
export interface FakeCheckout {
  id: string;
  link: string;
  status: 'ACTIVE' | 'PAID' | 'CANCELED' | 'EXPIRED';
  billingTypes: string[];
  chargeTypes: string[];
  installment?: { maxInstallmentCount: number };
  minutesToExpire: number;
  callback: { successUrl: string; cancelUrl?: string; expiredUrl?: string };
  items: Array<{ name: string; description?: string; quantity: number; value: number }>;
  externalReference?: string;
  dateCreated: string;
  /** When Asaas ends it (dateCreated + minutesToExpire): not a field of Asaas's answer. */
  expiresAt: number;
}

export interface FakePayment {
  object: 'payment';
  id: string;
  dateCreated: string;
  customer: string;
  checkoutSession: string;
  installment: string | null;
  installmentNumber: number | null;
  value: number;
  netValue: number;
  interestValue: number | null;
  billingType: 'PIX' | 'CREDIT_CARD';
  status: string;
  dueDate: string;
  canBePaidAfterDueDate: boolean;
  externalReference: string | null;
  deleted: boolean;
}

const BILLING_TYPES = ['PIX', 'CREDIT_CARD'];
const CHARGE_TYPES = ['DETACHED', 'INSTALLMENT'];

export class FakeAsaas extends LoopbackFake {
  readonly checkouts = new Map<string, FakeCheckout>();
  readonly payments = new Map<string, FakePayment>();
  readonly requests: Array<{ method: string; path: string; body?: unknown }> = [];

  constructor(
    readonly apiKey = `$aact_hmlg_${randomBytes(24).toString('base64url')}`,
    readonly webhookToken = `whtok-${randomBytes(24).toString('hex')}`,
  ) {
    super();
  }

  protected buildApp(): express.Express {
    const app = express();
    app.use(express.json());
    const api = express.Router();
    api.use((req, res, next) => {
      this.requests.push({ method: req.method, path: req.path, body: req.body as unknown });
      if (!req.header('user-agent')) {
        return asaasError(res, 400, 'invalid_user_agent', 'O header User-Agent é obrigatório.');
      }
      if (req.header('access_token') !== this.apiKey) {
        return asaasError(
          res,
          401,
          'invalid_access_token',
          'A chave de API informada não pertence a este ambiente.',
        );
      }
      next();
    });
    api.post('/checkouts', (req, res) => {
      const body = req.body as Partial<FakeCheckout>;
      const problem = checkoutProblem(body);
      if (problem) return asaasError(res, 400, 'invalid_checkout', problem);
      const id = randomUUID();
      const now = Date.now();
      const checkout: FakeCheckout = {
        ...(body as FakeCheckout),
        id,
        link: `${this.url}/checkoutSession/show?id=${id}`,
        status: 'ACTIVE',
        dateCreated: new Date(now).toISOString(),
        expiresAt: now + (body.minutesToExpire ?? 60) * 60_000,
      };
      this.checkouts.set(id, checkout);
      return res.json(this.view(checkout));
    });
    api.post('/checkouts/:id/cancel', (req, res) => {
      const checkout = this.checkouts.get(req.params.id);
      if (!checkout) return asaasError(res, 404, 'not_found', 'Checkout não encontrado.');
      if (this.statusOf(checkout) !== 'ACTIVE') {
        return asaasError(
          res,
          400,
          'invalid_action',
          'Somente checkouts ativos podem ser cancelados.',
        );
      }
      checkout.status = 'CANCELED';
      return res.json(this.view(checkout));
    });
    api.get('/payments', (req, res) => {
      const session = req.query.checkoutSession;
      const reference = req.query.externalReference;
      const limit = Math.min(100, Number(req.query.limit ?? 10));
      const offset = Number(req.query.offset ?? 0);
      const found = [...this.payments.values()].filter(
        (p) =>
          (session === undefined || p.checkoutSession === session) &&
          (reference === undefined || p.externalReference === reference),
      );
      res.json({
        object: 'list',
        hasMore: offset + limit < found.length,
        totalCount: found.length,
        limit,
        offset,
        data: found.slice(offset, offset + limit),
      });
    });
    api.get('/finance/balance', (_req, res) => res.json({ balance: 0 }));
    api.use((_req, res) => asaasError(res, 404, 'not_found', 'Recurso não encontrado.'));
    app.use('/v3', api);
    return app;
  }

  /** ASAAS_API_URL and the rest: the variables that aim the connector at this fake. */
  env(): Record<string, string> {
    return {
      PAYMENT_PROVIDER: 'asaas',
      ASAAS_API_KEY: this.apiKey,
      ASAAS_WEBHOOK_TOKEN: this.webhookToken,
      ASAAS_API_URL: `${this.url}/v3`,
      // A loopback fake is no official host: the deployment lists it (CONTRACT "Provider hosts").
      PROVIDER_API_ORIGINS: this.url,
    };
  }

  /** A checkout as Asaas answers it (its expiry is seen when read, as Asaas ends it on time). */
  private view(checkout: FakeCheckout): Omit<FakeCheckout, 'expiresAt'> {
    const { expiresAt: _expiresAt, ...shown } = checkout;
    return { ...shown, status: this.statusOf(checkout) };
  }

  statusOf(checkout: FakeCheckout): FakeCheckout['status'] {
    if (checkout.status === 'ACTIVE' && Date.now() >= checkout.expiresAt)
      checkout.status = 'EXPIRED';
    return checkout.status;
  }

  checkoutFor(externalReference: string): FakeCheckout | undefined {
    return [...this.checkouts.values()].find((c) => c.externalReference === externalReference);
  }

  /**
   * The customer pays an active checkout: a Pix (PENDING until `settle`, or RECEIVED at once) or a
   * card, in `installments` (one payment per installment, all CONFIRMED), with `interestMinor` of
   * interest on top when the buyer pays some. Throws when the checkout can no longer be paid,
   * unless `late`: a Pix code the customer copied while the checkout was active, paid after it
   * closed (Asaas's reference does not say it refuses one; the connector's late-payment path
   * exists for it).
   */
  pay(
    checkout: FakeCheckout,
    how: {
      billingType: 'PIX' | 'CREDIT_CARD';
      status?: string;
      installments?: number;
      interestMinor?: number;
      valueMinor?: number;
      late?: boolean;
    },
  ): FakePayment[] {
    if (this.statusOf(checkout) !== 'ACTIVE' && !how.late) {
      throw new Error(`checkout ${checkout.status}`);
    }
    if (!checkout.billingTypes.includes(how.billingType)) {
      throw new Error(`${how.billingType} is not offered`);
    }
    const count = how.installments ?? 1;
    if (count > 1 && (checkout.installment?.maxInstallmentCount ?? 1) < count) {
      throw new Error(`at most ${checkout.installment?.maxInstallmentCount ?? 1} installments`);
    }
    const orderMinor =
      how.valueMinor ??
      checkout.items.reduce((sum, item) => sum + Math.round(item.value * 100) * item.quantity, 0);
    const totalMinor = orderMinor + (how.interestMinor ?? 0);
    const plan = count > 1 ? randomUUID() : null;
    const status = how.status ?? (how.billingType === 'PIX' ? 'PENDING' : 'CONFIRMED');
    const made: FakePayment[] = [];
    for (let n = 1; n <= count; n++) {
      const share = (total: number) =>
        n < count ? Math.floor(total / count) : total - Math.floor(total / count) * (count - 1);
      const value = share(totalMinor) / 100;
      const interest = how.interestMinor ? share(how.interestMinor) / 100 : null;
      const payment: FakePayment = {
        object: 'payment',
        id: `pay_${randomBytes(8).toString('hex')}`,
        dateCreated: new Date().toISOString().slice(0, 10),
        customer: 'cus_000005219613',
        checkoutSession: checkout.id,
        installment: plan,
        installmentNumber: plan ? n : null,
        value,
        netValue: Math.round(value * 97) / 100,
        interestValue: interest,
        billingType: how.billingType,
        status,
        dueDate: new Date().toISOString().slice(0, 10),
        canBePaidAfterDueDate: false,
        externalReference: null,
        deleted: false,
      };
      this.payments.set(payment.id, payment);
      made.push(payment);
    }
    // A closed checkout stays as it was closed; only an active one becomes PAID.
    const paid = status === 'RECEIVED' || status === 'CONFIRMED';
    if (paid && this.statusOf(checkout) === 'ACTIVE') checkout.status = 'PAID';
    return made;
  }

  /**
   * Asaas ends an active checkout by itself: the shop cancels it in Asaas's panel (CANCELED), or
   * Asaas's own clock runs out (EXPIRED). Asaas then posts CHECKOUT_CANCELED or CHECKOUT_EXPIRED
   * (docs.asaas.com, "Eventos para Checkout"); the test sends it with `event`.
   */
  endCheckout(checkout: FakeCheckout, status: 'CANCELED' | 'EXPIRED'): FakeCheckout {
    if (this.statusOf(checkout) !== 'ACTIVE') throw new Error(`checkout ${checkout.status}`);
    checkout.status = status;
    return checkout;
  }

  /** Payments change status (a Pix received, a refund, a chargeback...). */
  update(payments: FakePayment[], status: string): FakePayment[] {
    for (const payment of payments) payment.status = status;
    const checkout = payments[0] && this.checkouts.get(payments[0].checkoutSession);
    const paid = status === 'RECEIVED' || status === 'CONFIRMED';
    if (checkout && paid && this.statusOf(checkout) === 'ACTIVE') checkout.status = 'PAID';
    return payments;
  }

  paymentsOf(checkout: FakeCheckout): FakePayment[] {
    return [...this.payments.values()].filter((p) => p.checkoutSession === checkout.id);
  }

  /** An event as Asaas posts it: `{id: "evt_...", event, dateCreated, account, checkout|payment}`. */
  event(
    event: string,
    about: { checkout: FakeCheckout } | { payment: FakePayment },
  ): Record<string, unknown> {
    return {
      id: `evt_${randomBytes(16).toString('hex')}&${Math.floor(Math.random() * 1e7)}`,
      event,
      dateCreated: new Date().toISOString().replace('T', ' ').slice(0, 19),
      account: { id: randomUUID(), ownerId: null },
      ...('checkout' in about
        ? { checkout: this.view(about.checkout) }
        : { payment: about.payment }),
    };
  }

  /** Posts an event to the connector with the webhook's token (or `token`; null: none); its answer. */
  async notify(
    endpoint: string,
    event: Record<string, unknown>,
    token: string | null = this.webhookToken,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { 'asaas-access-token': token }),
      },
      body: JSON.stringify(event),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
}

/** What Asaas would refuse in a checkout's creation, as its reference describes the fields. */
function checkoutProblem(body: Partial<FakeCheckout>): string | undefined {
  if (!body.billingTypes?.length || body.billingTypes.some((t) => !BILLING_TYPES.includes(t))) {
    return 'billingTypes deve conter PIX e/ou CREDIT_CARD.';
  }
  if (!body.chargeTypes?.length || body.chargeTypes.some((t) => !CHARGE_TYPES.includes(t))) {
    return 'chargeTypes inválido.';
  }
  if (body.chargeTypes.includes('INSTALLMENT')) {
    const count = body.installment?.maxInstallmentCount;
    if (!Number.isInteger(count) || (count ?? 0) < 1) {
      return 'installment.maxInstallmentCount é obrigatório para INSTALLMENT.';
    }
    if (!body.billingTypes.includes('CREDIT_CARD')) return 'INSTALLMENT exige CREDIT_CARD.';
  }
  if (!Number.isInteger(body.minutesToExpire) || (body.minutesToExpire ?? 0) < 1) {
    return 'minutesToExpire deve ser um inteiro positivo.';
  }
  if (!body.callback?.successUrl) return 'callback.successUrl é obrigatório.';
  if (!body.items?.length) return 'items é obrigatório.';
  for (const item of body.items) {
    if (!item.name || item.name.length > 30) return 'O nome do item deve ter até 30 caracteres.';
    if (!(item.value > 0) || !Number.isInteger(item.quantity) || item.quantity < 1) {
      return 'Informe quantity e value de cada item.';
    }
  }
  return undefined;
}

function asaasError(res: Response, status: number, code: string, description: string): void {
  res.status(status).json({ errors: [{ code, description }] });
}
