import { randomBytes } from 'node:crypto';
import { newCheckoutId } from '../../../src/checkout/checkout-record';
import {
  closeRedis,
  createRedis,
  waitForRedis,
  type RedisCommands,
} from '../../../src/redis/redis';
import { AsaasProvider } from '../../../src/payments/asaas/asaas-provider';
import { redisCreatedCheckouts } from '../../../src/payments/created-checkouts';
import { MercadoPagoProvider } from '../../../src/payments/mercadopago/mercadopago-provider';
import type { CheckoutRequest, PaymentProvider } from '../../../src/payments/payment-provider';
import type { PaymentOptions } from '../../../src/payments/payment-options';
import { StripeProvider } from '../../../src/payments/stripe/stripe-provider';
import { FakeAsaas } from '../../support/fake-asaas';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';
import { eventually, startHarness, type Harness } from '../../support/harness';
import { startTestRedis, type TestRedis } from '../../support/redis-server';
import { adminApi, requestOnRoute } from '../../support/registry-shop';

/*
 * How the customer may pay (PAYMENT_METHODS, CARD_MAX_INSTALLMENTS, CHECKOUT_EXPIRY_MINUTES, a
 * shop's `payment`), as each provider's own fields say it, and what a provider cannot honour
 * refused when the shop is saved (the environment's: test/unit/config/config.test.ts).
 */
const request = (checkoutId: string): CheckoutRequest => ({
  checkoutId,
  serviceId: 1001,
  amount: { amountMinor: 120_000, currency: 'BRL' },
  lines: [{ label: 'Corte', amountMinor: 120_000 }],
  description: 'Pedido 1001',
  returnUrl: 'http://127.0.0.1:9/return/x',
  cancelUrl: 'http://127.0.0.1:9/return/x?cancelled=1',
  createdAt: new Date(),
  expiresAt: new Date(Date.now() + 3_600_000),
});

const pixAndCardIn6: PaymentOptions = { methods: ['pix', 'card'], maxInstallments: 6 };

describe('each provider maps the payment options to its own fields', () => {
  let redis: TestRedis;
  let connection: RedisCommands;
  beforeAll(async () => {
    redis = await startTestRedis();
    connection = createRedis(redis.url, 'producer', 'options');
    await waitForRedis(connection, 5000);
  });
  afterAll(async () => {
    await closeRedis(connection);
    await redis.close();
  });

  it('Stripe: the methods become allowed_payment_method_types', async () => {
    const fake = new FakeStripe();
    await fake.start();
    try {
      const provider: PaymentProvider = new StripeProvider({
        secretKey: fake.secretKey,
        webhookSecret: fake.webhookSecret,
        apiUrl: fake.url,
        payment: { methods: ['pix', 'boleto'], maxInstallments: 1 },
      });
      const { providerRef } = await provider.createCheckout(request(newCheckoutId()));
      expect(fake.session(providerRef).allowed_payment_method_types).toEqual(['pix', 'boleto']);
      expect(() => fake.pay(providerRef, 'card')).toThrow('card is not offered');
      fake.pay(providerRef, 'boleto');
      expect((await provider.getStatus({ providerRef, checkoutId: '' })).state).toBe('processing');
    } finally {
      await fake.stop();
    }
  });

  it('Mercado Pago: the other methods excluded, and the most installments', async () => {
    const fake = new FakeMercadoPago();
    await fake.start();
    try {
      const provider: PaymentProvider = new MercadoPagoProvider({
        accessToken: fake.accessToken,
        webhookSecret: fake.webhookSecret,
        apiUrl: fake.url,
        notificationUrl: 'http://127.0.0.1:9/webhooks/mercadopago',
        payment: pixAndCardIn6,
      });
      const checkoutId = newCheckoutId();
      await provider.createCheckout(request(checkoutId));
      const preference = fake.preferenceFor(checkoutId)!;
      expect(preference.payment_methods).toEqual({
        excluded_payment_types: [{ id: 'ticket' }, { id: 'atm' }],
        installments: 6,
      });
      expect(() => fake.pay(preference, 'pending', undefined, { paymentType: 'ticket' })).toThrow(
        'ticket is excluded',
      );
      expect(() => fake.pay(preference, 'approved', undefined, { installments: 7 })).toThrow(
        'at most 6 installments',
      );
      fake.pay(preference, 'approved', undefined, { installments: 6 });
      expect((await provider.getStatus({ providerRef: preference.id, checkoutId })).state).toBe(
        'paid',
      );
    } finally {
      await fake.stop();
    }
  });

  it('Asaas: billingTypes, and INSTALLMENT with maxInstallmentCount when a card may be split', async () => {
    const fake = new FakeAsaas();
    await fake.start();
    try {
      const make = (payment: PaymentOptions) =>
        new AsaasProvider({
          apiKey: fake.apiKey,
          webhookToken: fake.webhookToken,
          apiUrl: `${fake.url}/v3`,
          created: redisCreatedCheckouts(
            connection,
            `o${randomBytes(4).toString('hex')}`,
            'x',
            'asaas',
          ),
          payment,
        });
      const split = await make(pixAndCardIn6).createCheckout(request(newCheckoutId()));
      const checkout = fake.checkouts.get(split.providerRef)!;
      expect(checkout).toMatchObject({
        billingTypes: ['PIX', 'CREDIT_CARD'],
        chargeTypes: ['DETACHED', 'INSTALLMENT'],
        installment: { maxInstallmentCount: 6 },
      });
      expect(() => fake.pay(checkout, { billingType: 'CREDIT_CARD', installments: 7 })).toThrow(
        'at most 6 installments',
      );
      fake.pay(checkout, { billingType: 'CREDIT_CARD', installments: 6 });
      // Six payments of one plan: one payment of the whole amount.
      expect(await make(pixAndCardIn6).getStatus({ providerRef: checkout.id })).toMatchObject({
        state: 'paid',
        amount: { amountMinor: 120_000, currency: 'BRL' },
      });

      const pixOnly = await make({ methods: ['pix'], maxInstallments: 1 }).createCheckout(
        request(newCheckoutId()),
      );
      const pix = fake.checkouts.get(pixOnly.providerRef)!;
      expect(pix).toMatchObject({ billingTypes: ['PIX'], chargeTypes: ['DETACHED'] });
      expect(pix.installment).toBeUndefined();
      expect(() => fake.pay(pix, { billingType: 'CREDIT_CARD' })).toThrow('not offered');
    } finally {
      await fake.stop();
    }
  });
});

describe("a registry shop's payment options", () => {
  const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`, ADMIN_TOKEN },
    });
  });
  afterAll(() => h.stop());

  const shop = (id: string, provider: Record<string, unknown>, payment?: unknown) => {
    const platform = {
      email: `${id}@shops.example.com`,
      password: `pw-${randomBytes(6).toString('hex')}`,
      apiKey: `key-${randomBytes(6).toString('hex')}`,
    };
    h.simulator.state.addAccount(platform);
    return { id, name: `Loja ${id}`, platform, provider, ...(payment ? { payment } : {}) };
  };
  const add = (document: unknown) =>
    adminApi(h, ADMIN_TOKEN)('/shops', { method: 'POST', body: JSON.stringify(document) });

  it('refuses what the provider cannot honour, saying why, and stores nothing', async () => {
    const stripe = { name: 'stripe', secretKey: 'sk_test_abc', webhookSecret: 'whsec_abc' };
    const installments = await add(shop('loja-stripe', stripe, { maxInstallments: 3 }));
    expect(installments.status).toBe(400);
    expect(await installments.json()).toMatchObject({
      error: {
        code: 'VALIDATION_FAILED',
        details: [
          {
            field: 'payment.maxInstallments',
            problem: expect.stringContaining('Stripe cannot split a card payment in BRL'),
          },
        ],
      },
    });
    const days = await add(shop('loja-stripe', stripe, { expiryMinutes: 4320 }));
    expect(await days.json()).toMatchObject({
      error: {
        details: [{ field: 'payment.expiryMinutes', problem: expect.stringContaining('24 hours') }],
      },
    });
    const asaas = {
      name: 'asaas',
      apiKey: '$aact_hmlg_abc',
      webhookToken: 'x'.repeat(32),
    };
    const boleto = await add(shop('loja-asaas', asaas, { methods: ['pix', 'boleto'] }));
    expect(await boleto.json()).toMatchObject({
      error: {
        details: [
          {
            field: 'payment.methods',
            problem: 'asaas cannot take boleto: Asaas Checkout offers Pix and card only',
          },
        ],
      },
    });
    const unknown = await add(shop('loja-x', { name: 'sandbox' }, { methods: ['cash'] }));
    expect(await unknown.json()).toMatchObject({
      error: { details: [{ field: 'payment.methods.0', problem: 'must be pix, card, boleto' }] },
    });
    expect((await adminApi(h, ADMIN_TOKEN)('/shops/loja-stripe')).status).toBe(404);
  });

  it('serves a shop with its own methods, installments and expiry, and changes them', async () => {
    const added = await add(
      shop(
        'loja-opcoes',
        { name: 'sandbox' },
        { methods: ['card'], maxInstallments: 10, expiryMinutes: 2880 },
      ),
    );
    expect(added.status).toBe(201);
    const { checkout_route: route } = (await added.json()) as {
      checkout_route: { url: string; token: string };
    };
    await h.connector.registry.refresh();
    const opened = await requestOnRoute(route, 1002);
    const { checkout_id: checkoutId } = (await opened.json()) as { checkout_id: string };
    const record = await eventually(async () => {
      const found = await h.connector.directory.cached('loja-opcoes')?.deps.store.get(checkoutId);
      return found?.url ? found : undefined;
    });
    // Two days to pay, as the shop chose.
    const window = Date.parse(record.expiresAt) - Date.parse(record.createdAt);
    expect(window).toBe(2880 * 60_000);
    const page = await (await fetch(record.url!)).text();
    expect(page).toContain('em até 10× no cartão');
    expect(page).not.toContain('Pagar com Pix');

    const view = (await (await adminApi(h, ADMIN_TOKEN)('/shops/loja-opcoes')).json()) as {
      payment?: unknown;
    };
    expect(view.payment).toEqual({ methods: ['card'], maxInstallments: 10, expiryMinutes: 2880 });
    const changed = await adminApi(h, ADMIN_TOKEN)('/shops/loja-opcoes', {
      method: 'PATCH',
      body: JSON.stringify({ payment: { methods: ['pix', 'card'] } }),
    });
    expect(changed.status).toBe(200);
    const after = (await (await adminApi(h, ADMIN_TOKEN)('/shops/loja-opcoes')).json()) as {
      payment?: unknown;
    };
    expect(after.payment).toEqual({
      methods: ['pix', 'card'],
      maxInstallments: 10,
      expiryMinutes: 2880,
    });
    const cleared = await adminApi(h, ADMIN_TOKEN)('/shops/loja-opcoes', {
      method: 'PATCH',
      body: JSON.stringify({ payment: null }),
    });
    expect(cleared.status).toBe(200);
    expect(((await cleared.json()) as { payment?: unknown }).payment).toBeUndefined();
    const audit = (await (await adminApi(h, ADMIN_TOKEN)('/shops/loja-opcoes/audit')).json()) as {
      entries: Array<{ action: string; fields?: string[] }>;
    };
    expect(audit.entries.map((entry) => entry.fields ?? [])).toContainEqual([
      'payment.methods',
      'payment.maxInstallments',
      'payment.expiryMinutes',
    ]);
    // The add names every field it set, the payment choice's among them.
    const addition = audit.entries.find((entry) => entry.action === 'added');
    expect(addition?.fields).toEqual(
      expect.arrayContaining([
        'name',
        'platform.password',
        'payment.methods',
        'payment.maxInstallments',
        'payment.expiryMinutes',
      ]),
    );
  });
});
