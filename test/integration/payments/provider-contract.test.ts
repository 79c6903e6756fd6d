import { randomBytes } from 'node:crypto';
import { newCheckoutId } from '../../../src/checkout/checkout-record';
import {
  closeRedis,
  createRedis,
  waitForRedis,
  type RedisCommands,
} from '../../../src/infra/redis';
import { AsaasProvider } from '../../../src/payments/asaas/asaas-provider';
import { redisCreatedCheckouts } from '../../../src/payments/created-checkouts';
import { MercadoPagoProvider } from '../../../src/payments/mercadopago/mercadopago-provider';
import { signNotification } from '../../../src/payments/mercadopago/mercadopago-signature';
import type {
  CheckoutRequest,
  PaymentProvider,
  WebhookHint,
  WebhookInput,
} from '../../../src/payments/payment-provider';
import { SandboxProvider } from '../../../src/payments/sandbox/sandbox-provider';
import { StripeProvider } from '../../../src/payments/stripe/stripe-provider';
import { certificateFromPem } from '../../../src/payments/pix/pix-certificate';
import { redisPixCharges } from '../../../src/payments/pix/pix-charges';
import { PIX_PROFILES } from '../../../src/payments/pix/pix-profiles';
import { PixProvider } from '../../../src/payments/pix/pix-provider';
import { FakeAsaas } from '../../support/fake-asaas';
import { FakePix } from '../../support/fake-pix';
import { makePixCertificates } from '../../support/pix-certificates';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/**
 * Webhooks a provider must refuse: a body changed after signing, another secret, an old signature,
 * none at all. Asaas signs nothing (a static token in a header), so only the token's forgeries
 * apply to it; a replayed event is the core's to dedupe, by event id.
 */
type Forgery = 'tampered' | 'wrong secret' | 'stale' | 'missing';
const SIGNED: readonly Forgery[] = ['tampered', 'wrong secret', 'stale', 'missing'];
const TOKEN: readonly Forgery[] = ['wrong secret', 'missing'];

/**
 * What the contract needs of each adapter's world: the adapter, the customer's hand at the
 * provider (pay by card, start and confirm a Pix, issue a boleto where the provider offers one),
 * and the provider's webhooks, valid or forged.
 */
interface Driver {
  provider: PaymentProvider;
  pay(checkoutId: string, providerRef: string): Promise<void>;
  startPix(checkoutId: string, providerRef: string): Promise<void>;
  confirmPix(checkoutId: string, providerRef: string): Promise<void>;
  /** Undefined for a provider whose checkout offers no boleto (Asaas Checkout). */
  issueBoleto?(checkoutId: string, providerRef: string): Promise<void>;
  /** The shop refunds a paid payment (from the provider's dashboard). */
  refund(checkoutId: string, providerRef: string): Promise<void>;
  /** Undefined for a provider without webhooks (the sandbox: its page reports directly). */
  webhook?(checkoutId: string, providerRef: string, forgery?: Forgery): Promise<WebhookInput>;
  close(): Promise<void>;
}

let redis: TestRedis;
let connection: RedisCommands;
beforeAll(async () => {
  redis = await startTestRedis();
  connection = createRedis(redis.url, 'producer', 'contract');
  await waitForRedis(connection, 5000);
});
afterAll(async () => {
  await closeRedis(connection);
  await redis.close();
});

async function sandboxDriver(): Promise<Driver> {
  const sandbox = new SandboxProvider(connection, {
    prefix: `c${randomBytes(4).toString('hex')}`,
    shop: 'default',
    publicUrl: 'http://127.0.0.1:9',
  });
  return {
    provider: sandbox,
    // As its page's buttons do: Pay is a card; Pay again confirms a Pix or boleto under way.
    pay: async (checkoutId) => void (await sandbox.settle(checkoutId, 'paid', 'card')),
    startPix: async (checkoutId) => void (await sandbox.settle(checkoutId, 'processing', 'pix')),
    confirmPix: async (checkoutId) => void (await sandbox.settle(checkoutId, 'paid', 'card')),
    issueBoleto: async (checkoutId) =>
      void (await sandbox.settle(checkoutId, 'processing', 'boleto')),
    refund: async (checkoutId) => void (await sandbox.after(checkoutId, 'refunded')),
    close: async () => {},
  };
}

async function stripeDriver(): Promise<Driver> {
  const fake = new FakeStripe();
  await fake.start();
  const provider = new StripeProvider({
    secretKey: fake.secretKey,
    webhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
  });
  return {
    provider,
    pay: async (_id, ref) => void fake.pay(ref, 'card'),
    startPix: async (_id, ref) => void fake.pay(ref, 'pix'),
    confirmPix: async (_id, ref) => void fake.settle(ref, true),
    issueBoleto: async (_id, ref) => void fake.pay(ref, 'boleto'),
    refund: async (_id, ref) => void fake.refund(ref),
    webhook: async (_id, ref, forgery) => {
      const event = fake.event('checkout.session.completed', fake.session(ref));
      const signed = fake.signature(event.body, {
        secret: forgery === 'wrong secret' ? 'whsec_wrong' : undefined,
        timestamp: forgery === 'stale' ? Math.floor(Date.now() / 1000) - 3600 : undefined,
      });
      const body = forgery === 'tampered' ? event.body.replace(ref, `${ref}x`) : event.body;
      const headers = forgery === 'missing' ? {} : { 'stripe-signature': signed };
      return { headers, query: {}, rawBody: Buffer.from(body) };
    },
    close: () => fake.stop(),
  };
}

async function mercadoPagoDriver(): Promise<Driver> {
  const fake = new FakeMercadoPago();
  await fake.start();
  const provider = new MercadoPagoProvider({
    accessToken: fake.accessToken,
    webhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
    notificationUrl: 'http://127.0.0.1:9/webhooks/mercadopago',
  });
  const preference = (checkoutId: string) => {
    const found = fake.preferenceFor(checkoutId);
    if (!found) throw new Error(`no preference for ${checkoutId}`);
    return found;
  };
  return {
    provider,
    pay: async (id) => void fake.pay(preference(id), 'approved'),
    startPix: async (id) =>
      void fake.pay(preference(id), 'pending', undefined, { paymentType: 'bank_transfer' }),
    confirmPix: async (id) => {
      const pending = [...fake.payments.values()].find(
        (p) => p.external_reference === id && p.status === 'pending',
      );
      if (pending) fake.update(pending, 'approved');
    },
    issueBoleto: async (id) =>
      void fake.pay(preference(id), 'pending', undefined, { paymentType: 'ticket' }),
    refund: async (id) => {
      for (const payment of fake.payments.values())
        if (payment.external_reference === id && payment.status === 'approved')
          fake.update(payment, 'refunded');
    },
    webhook: async (id, _ref, forgery) => {
      const payment =
        [...fake.payments.values()].find((p) => p.external_reference === id) ??
        fake.pay(preference(id), 'approved');
      const requestId = randomBytes(8).toString('hex');
      const ts = String(forgery === 'stale' ? Date.now() - 3_600_000 : Date.now());
      const signature = signNotification(
        forgery === 'wrong secret' ? 'another-secret-0123456789' : fake.webhookSecret,
        { dataId: String(payment.id), requestId, ts },
      );
      const dataId = forgery === 'tampered' ? String(payment.id + 1) : String(payment.id);
      return {
        headers: {
          ...(forgery === 'missing' ? {} : { 'x-signature': signature }),
          'x-request-id': requestId,
        },
        query: { 'data.id': dataId, type: 'payment' },
        rawBody: Buffer.from(JSON.stringify({ id: 1, type: 'payment', data: { id: dataId } })),
      };
    },
    close: () => fake.stop(),
  };
}

async function asaasDriver(): Promise<Driver> {
  const fake = new FakeAsaas();
  await fake.start();
  const provider = new AsaasProvider({
    apiKey: fake.apiKey,
    webhookToken: fake.webhookToken,
    apiUrl: `${fake.url}/v3`,
    created: redisCreatedCheckouts(
      connection,
      `c${randomBytes(4).toString('hex')}`,
      'default',
      'asaas',
    ),
  });
  const checkout = (ref: string) => {
    const found = fake.checkouts.get(ref);
    if (!found) throw new Error(`no checkout ${ref}`);
    return found;
  };
  return {
    provider,
    pay: async (_id, ref) => void fake.pay(checkout(ref), { billingType: 'CREDIT_CARD' }),
    startPix: async (_id, ref) => void fake.pay(checkout(ref), { billingType: 'PIX' }),
    confirmPix: async (_id, ref) => void fake.update(fake.paymentsOf(checkout(ref)), 'RECEIVED'),
    refund: async (_id, ref) => void fake.update(fake.paymentsOf(checkout(ref)), 'REFUNDED'),
    webhook: async (_id, ref, forgery) => {
      const [payment] = fake.paymentsOf(checkout(ref));
      const event = payment
        ? fake.event('PAYMENT_CONFIRMED', { payment })
        : fake.event('CHECKOUT_PAID', { checkout: checkout(ref) });
      const token = forgery === 'wrong secret' ? `${fake.webhookToken}x` : fake.webhookToken;
      return {
        headers: forgery === 'missing' ? {} : { 'asaas-access-token': token },
        query: {},
        rawBody: Buffer.from(JSON.stringify(event)),
      };
    },
    close: () => fake.stop(),
  };
}

/** The API Pix through its fake PSP: mTLS with the test CA's client certificate. */
async function pixDriver(): Promise<Driver> {
  const certs = await makePixCertificates();
  const fake = new FakePix({ certs });
  await fake.start();
  const prefix = `c${randomBytes(4).toString('hex')}`;
  const provider = new PixProvider({
    profile: PIX_PROFILES.efi,
    endpoints: { api: fake.apiUrl, token: `${fake.url}/oauth/token` },
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    certificate: certificateFromPem(certs.clientPem),
    pixKey: fake.pixKey,
    refundLatePix: true,
    webhookUrl: 'http://127.0.0.1:9/webhooks/pix/default',
    pageUrl: (checkoutId) => `http://127.0.0.1:9/pix/${checkoutId}`,
    charges: redisPixCharges(connection, prefix, 'default'),
  });
  return {
    provider,
    pay: async (_id, ref) => void fake.pay(ref),
    startPix: async () => undefined,
    confirmPix: async (_id, ref) => void fake.pay(ref),
    refund: async (_id, ref) => {
      const paid = [...fake.payments.values()].find((pix) => pix.txid === ref);
      if (!paid) throw new Error(`no Pix of ${ref}`);
      await provider.returnLatePayment({ providerRef: ref });
      for (const devolucao of fake.receivedPix(paid.endToEndId).devolucoes ?? [])
        fake.settleDevolucao(paid.endToEndId, devolucao.id);
    },
    webhook: async (_id, ref) => {
      const paid = [...fake.payments.values()].find((pix) => pix.txid === ref);
      return { headers: {}, query: {}, rawBody: Buffer.from(JSON.stringify({ pix: [paid] })) };
    },
    close: async () => {
      await fake.stop();
      await certs.remove();
    },
  };
}

/**
 * When the checkouts open and end: one instant each for the run, as a checkout's record keeps them
 * for every attempt (a new one per call made a repeat across a second's edge a different request).
 */
const OPENED_AT = new Date();
const EXPIRES_AT = new Date(OPENED_AT.getTime() + 3_600_000);

const request = (checkoutId: string): CheckoutRequest => ({
  checkoutId,
  serviceId: 1001,
  amount: { amountMinor: 53_035, currency: 'BRL' },
  lines: [{ label: 'Corte', amountMinor: 53_035 }],
  description: 'Pedido 1001',
  returnUrl: `http://127.0.0.1:9/return/x?checkout_id=${checkoutId}`,
  cancelUrl: `http://127.0.0.1:9/return/x?checkout_id=${checkoutId}&cancelled=1`,
  createdAt: OPENED_AT,
  expiresAt: EXPIRES_AT,
});

/** What a provider's checkout offers: a card, a boleto, a Pix that is under way before it is paid. */
const ALL = { card: true, boleto: true, pixUnderWay: true };

describe.each([
  ['sandbox', sandboxDriver, SIGNED, ALL],
  ['stripe', stripeDriver, SIGNED, ALL],
  ['mercadopago', mercadoPagoDriver, SIGNED, ALL],
  // Asaas Checkout offers no boleto.
  ['asaas', asaasDriver, TOKEN, { ...ALL, boleto: false }],
  // The API Pix: a Pix only, paid at once (no "under way"); its webhook is signed by no one (the
  // PSP's mTLS ends at the proxy), so it has no forgery to refuse: it is a hint, read again.
  ['pix', pixDriver, [], { card: false, boleto: false, pixUnderWay: false }],
] as const)('the payment provider contract: %s', (_name, makeDriver, forgeries, offers) => {
  let driver: Driver;
  beforeAll(async () => {
    driver = await makeDriver();
  });
  afterAll(() => driver.close());

  async function created() {
    const checkoutId = newCheckoutId();
    const checkout = await driver.provider.createCheckout(request(checkoutId));
    return { checkoutId, ...checkout };
  }
  const status = (c: { checkoutId: string; providerRef: string }) =>
    driver.provider.getStatus({ checkoutId: c.checkoutId, providerRef: c.providerRef });

  it('creates a checkout with a URL, once per checkout id', async () => {
    const checkoutId = newCheckoutId();
    const first = await driver.provider.createCheckout(request(checkoutId));
    const again = await driver.provider.createCheckout(request(checkoutId));
    expect(first.url).toMatch(/^https?:\/\//);
    expect(again).toEqual(first);
  });

  it('is pending until paid, then paid with a transaction id and the amount', async () => {
    const c = await created();
    expect((await status(c)).state).toBe('pending');
    await driver.pay(c.checkoutId, c.providerRef);
    const paid = await status(c);
    expect(paid).toMatchObject({ state: 'paid', transactionId: expect.any(String) });
    if (paid.amount) expect(paid.amount).toEqual({ amountMinor: 53_035, currency: 'BRL' });
  });

  (offers.pixUnderWay ? it : it.skip)(
    'is processing while a Pix is under way, then paid',
    async () => {
      const c = await created();
      await driver.startPix(c.checkoutId, c.providerRef);
      expect((await status(c)).state).toBe('processing');
      await driver.confirmPix(c.checkoutId, c.providerRef);
      expect((await status(c)).state).toBe('paid');
    },
  );

  (offers.card ? it : it.skip)('says a payment by card was made by card', async () => {
    const card = await created();
    expect((await status(card)).method).toBeUndefined();
    await driver.pay(card.checkoutId, card.providerRef);
    expect(await status(card)).toMatchObject({ state: 'paid', method: 'card' });
  });

  it('says a payment by Pix was made by Pix (under way first, where it can be)', async () => {
    const pix = await created();
    await driver.startPix(pix.checkoutId, pix.providerRef);
    if (offers.pixUnderWay) {
      expect(await status(pix)).toMatchObject({ state: 'processing', method: 'pix' });
    } else {
      expect(await status(pix)).toEqual({ state: 'pending' });
    }
    await driver.confirmPix(pix.checkoutId, pix.providerRef);
    expect(await status(pix)).toMatchObject({ state: 'paid', method: 'pix' });
  });

  (offers.boleto ? it : it.skip)('says a boleto issued is under way, by boleto', async () => {
    const boleto = await created();
    expect(driver.issueBoleto).toBeDefined();
    await driver.issueBoleto?.(boleto.checkoutId, boleto.providerRef);
    expect(await status(boleto)).toMatchObject({ state: 'processing', method: 'boleto' });
  });

  it('says refunded once a paid payment is refunded, naming the payment', async () => {
    const c = await created();
    await driver.pay(c.checkoutId, c.providerRef);
    const paid = await status(c);
    await driver.refund(c.checkoutId, c.providerRef);
    expect(await status(c)).toMatchObject({
      state: 'refunded',
      transactionId: paid.transactionId,
      reason: expect.any(String),
    });
  });

  it('can no longer be paid once the connector closes it', async () => {
    const c = await created();
    await driver.provider.cancelCheckout?.({
      checkoutId: c.checkoutId,
      providerRef: c.providerRef,
    });
    // The customer tries anyway: the provider refuses, or takes nothing.
    await driver.pay(c.checkoutId, c.providerRef).catch(() => undefined);
    expect((await status(c)).state).not.toBe('paid');
  });

  it('turns a valid webhook into a hint about this checkout', async () => {
    const c = await created();
    if (!driver.webhook) {
      expect(
        await driver.provider.parseWebhook({ headers: {}, query: {}, rawBody: Buffer.from('{}') }),
      ).toMatchObject({ ignore: expect.any(String) });
      return;
    }
    await driver.pay(c.checkoutId, c.providerRef);
    const hint: WebhookHint = await driver.provider.parseWebhook(
      await driver.webhook(c.checkoutId, c.providerRef),
    );
    expect(hint).toEqual(
      'checkoutId' in hint
        ? { checkoutId: c.checkoutId, eventId: expect.any(String) }
        : { providerRef: c.providerRef, eventId: expect.any(String) },
    );
  });

  if (forgeries.length > 0) {
    it.each([...forgeries])('refuses a webhook: %s', async (forgery) => {
      const c = await created();
      await driver.pay(c.checkoutId, c.providerRef);
      if (!driver.webhook) {
        // No webhooks at all: whatever arrives is acknowledged and ignored, never acted on.
        const input = { headers: {}, query: {}, rawBody: Buffer.from(forgery) };
        expect('ignore' in (await driver.provider.parseWebhook(input))).toBe(true);
        return;
      }
      const input = await driver.webhook(c.checkoutId, c.providerRef, forgery);
      await expect(driver.provider.parseWebhook(input)).rejects.toMatchObject({
        code: 'WEBHOOK_SIGNATURE_INVALID',
      });
    });
  } else {
    it('takes an unsigned webhook as a hint only: the status read says a forgery is unpaid', async () => {
      const c = await created();
      const forged = {
        pix: [
          {
            endToEndId: 'E0000000020261128000000000000000',
            txid: c.providerRef,
            valor: '530.35',
            horario: new Date().toISOString(),
          },
        ],
      };
      const input = { headers: {}, query: {}, rawBody: Buffer.from(JSON.stringify(forged)) };
      expect(await driver.provider.parseWebhook(input)).toEqual({
        providerRef: c.providerRef,
        eventId: expect.any(String),
      });
      expect(await status(c)).toEqual({ state: 'pending' });
    });
  }
});
