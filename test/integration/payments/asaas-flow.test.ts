import { randomBytes } from 'node:crypto';
import { checkoutStory } from '../../../src/cli/checkout-story';
import { FakeAsaas, type FakeCheckout } from '../../support/fake-asaas';
import { jobIds } from '../../../src/jobs/queue-names';
import {
  completedJob,
  eventually,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';
import { checkoutIdOf, providerSuite } from '../../support/provider-suite';
import { adminApi, requestOnRoute } from '../../support/registry-shop';

describe('PAYMENT_PROVIDER=asaas against a loopback Asaas', () => {
  const suite = providerSuite(() => new FakeAsaas(), {
    env: { CARD_MAX_INSTALLMENTS: '12' },
    start: { produceBackoffMs: 50 },
  });
  let asaas: FakeAsaas;
  let h: Harness;
  beforeAll(() => {
    ({ fake: asaas, h } = suite);
  });

  const webhooks = () => `${h.url}/webhooks/asaas`;
  const accepted = suite.accepted.bind(suite);

  async function open(serviceId: number): Promise<{ checkoutId: string; checkout: FakeCheckout }> {
    const { checkoutId, url } = await suite.open(serviceId);
    const checkout = asaas.checkoutFor(checkoutId);
    if (!checkout) throw new Error(`no Asaas checkout for ${checkoutId}`);
    expect(url).toBe(checkout.link);
    return { checkoutId, checkout };
  }

  it('creates one Asaas checkout per checkout, as Asaas documents it', async () => {
    const { checkoutId, checkout } = await open(1001);
    const record = await h.connector.deps.store.get(checkoutId);
    expect(checkout).toMatchObject({
      billingTypes: ['PIX', 'CREDIT_CARD'],
      chargeTypes: ['DETACHED', 'INSTALLMENT'],
      installment: { maxInstallmentCount: 12 },
      externalReference: checkoutId,
      minutesToExpire: expect.any(Number),
      callback: {
        successUrl: `${h.url}/return/asaas?checkout_id=${checkoutId}`,
        cancelUrl: `${h.url}/return/asaas?checkout_id=${checkoutId}&cancelled=1`,
        expiredUrl: `${h.url}/return/asaas?checkout_id=${checkoutId}&cancelled=1`,
      },
      items: [
        {
          name: 'Pedido 1001',
          quantity: 1,
          value: (record?.amount?.amountMinor ?? 0) / 100,
        },
      ],
    });
    // Within a minute of the checkout's own expiry.
    const expiresAt = Date.parse(record?.expiresAt ?? '');
    const asaasEnds = Date.parse(checkout.dateCreated) + checkout.minutesToExpire * 60_000;
    expect(Math.abs(asaasEnds - expiresAt)).toBeLessThanOrEqual(60_000);
    expect(asaas.requests.filter((r) => r.path === '/checkouts')).toHaveLength(
      asaas.checkouts.size,
    );
  });

  it('takes a checkout event as a hint too (CHECKOUT_PAID)', async () => {
    const { checkoutId, checkout } = await open(1003);
    asaas.pay(checkout, { billingType: 'PIX', status: 'RECEIVED' });
    const answer = await asaas.notify(webhooks(), asaas.event('CHECKOUT_PAID', { checkout }));
    expect(answer.body).toEqual({ received: true, checkout_id: checkoutId, state: 'paid' });
  });

  it('refuses a wrong or missing token with 400 and changes nothing', async () => {
    const { checkoutId, checkout } = await open(1004);
    const [payment] = asaas.pay(checkout, { billingType: 'CREDIT_CARD' });
    const event = asaas.event('PAYMENT_CONFIRMED', { payment: payment! });
    for (const token of [`${asaas.webhookToken}x`, 'short', null]) {
      const answer = await asaas.notify(webhooks(), event, token);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'WEBHOOK_SIGNATURE_INVALID' } });
    }
    expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('url_sent');
  });

  it('handles an event once, however often Asaas delivers it', async () => {
    const { checkout } = await open(1005);
    const [payment] = asaas.pay(checkout, { billingType: 'CREDIT_CARD' });
    const event = asaas.event('PAYMENT_CONFIRMED', { payment: payment! });
    expect((await asaas.notify(webhooks(), event)).body).toMatchObject({ state: 'paid' });
    expect((await asaas.notify(webhooks(), event)).body).toEqual({
      received: true,
      duplicate: true,
    });
    await settled(h.connector.jobs);
    expect(accepted('finish-checkout', 1005)).toHaveLength(1);
  });

  it('keeps a Pix waiting to be paid processing until Asaas receives it', async () => {
    const { checkoutId, checkout } = await open(1006);
    const pix = asaas.pay(checkout, { billingType: 'PIX' });
    expect(
      (await asaas.notify(webhooks(), asaas.event('PAYMENT_CREATED', { payment: pix[0]! }))).body,
    ).toMatchObject({ state: 'processing' });
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('pix');
    const page = await (await fetch(`${h.url}/return/asaas?checkout_id=${checkoutId}`)).text();
    expect(page).toContain('Aguardando o Pix');
    expect(page).not.toMatch(/boleto/i);
    asaas.update(pix, 'RECEIVED');
    expect(
      (await asaas.notify(webhooks(), asaas.event('PAYMENT_RECEIVED', { payment: pix[0]! }))).body,
    ).toMatchObject({ state: 'paid' });
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('pix');
  });

  it('pays a card in installments with the interest Asaas reports, recording both', async () => {
    const { checkoutId, checkout } = await open(1012);
    const order = (await h.connector.deps.store.get(checkoutId))!.amount!;
    const plan = asaas.pay(checkout, {
      billingType: 'CREDIT_CARD',
      installments: 6,
      interestMinor: 7_200,
    });
    expect(plan).toHaveLength(6);
    const answer = await asaas.notify(
      webhooks(),
      asaas.event('PAYMENT_CONFIRMED', { payment: plan[0]! }),
    );
    expect(answer.body).toMatchObject({ state: 'paid' });
    const record = await h.connector.deps.store.get(checkoutId);
    expect(record).toMatchObject({
      collected: { amountMinor: order.amountMinor + 7_200, currency: 'BRL' },
      interest: { amountMinor: 7_200, currency: 'BRL' },
      transactionId: plan[0]!.installment,
    });
    expect(record?.method).toBe('card');
    const paidStep = checkoutStory(record!, []).steps.find((step) => step.step === 'paid');
    expect(paidStep?.note).toMatch(
      /^by card; .*collected R\$\s.*, of which R\$\s72,00 the buyer's installment interest$/,
    );
    const finish = await eventually(
      () => accepted('finish-checkout', 1012)[0],
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toEqual({ service_id: 1012, transaction_id: plan[0]!.installment });
  });

  it('never pays installments whose principal falls short, whatever interest is reported', async () => {
    const { checkoutId, checkout } = await open(1013);
    const order = (await h.connector.deps.store.get(checkoutId))!.amount!;
    const plan = asaas.pay(checkout, {
      billingType: 'CREDIT_CARD',
      installments: 3,
      valueMinor: order.amountMinor - 5_000,
      interestMinor: 5_000,
    });
    await asaas.notify(webhooks(), asaas.event('PAYMENT_CONFIRMED', { payment: plan[0]! }));
    expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('url_sent');
    // Delivery is asynchronous: nothing queued either, once the connector has settled.
    await settled(h.connector.jobs);
    expect(accepted('finish-checkout', 1013)).toEqual([]);
  });

  it('acknowledges events it does not use, and payments of no checkout of its own', async () => {
    const { checkout } = await open(1009);
    const created = await asaas.notify(webhooks(), asaas.event('CHECKOUT_CREATED', { checkout }));
    expect(created.body).toMatchObject({ received: true });
    const [stranger] = asaas.pay(checkout, { billingType: 'CREDIT_CARD' });
    const foreign = { ...stranger!, checkoutSession: 'not-a-checkout-of-ours' };
    expect(
      (await asaas.notify(webhooks(), asaas.event('PAYMENT_CONFIRMED', { payment: foreign }))).body,
    ).toEqual({ received: true, ignored: 'unknown payment' });
    expect(
      (await asaas.notify(webhooks(), { id: 'evt_1', event: 'TRANSFER_DONE', transfer: {} })).body,
    ).toEqual({ received: true, ignored: 'event TRANSFER_DONE is not used' });
  });
});

describe('an Asaas checkout nobody pays', () => {
  const suite = providerSuite(() => new FakeAsaas(), { start: { expiryMs: 3000 } });
  let asaas: FakeAsaas;
  let h: Harness;
  beforeAll(() => {
    ({ fake: asaas, h } = suite);
  });

  it('cancels the Asaas checkout when it expires, and the platform gets the cancel', async () => {
    const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(1010));
    await eventually(() => h.simulator.checkoutUrlFor(1010), WAIT_DEADLINE_MS, 'url');
    const checkout = asaas.checkoutFor(checkoutId)!;
    const cancel = await eventually(
      () => h.simulator.accepted('cancel-checkout').find((c) => c.serviceId === 1010),
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1010, reason: 'checkout expired' });
    expect(asaas.statusOf(checkout)).toBe('CANCELED');
    expect(() => asaas.pay(checkout, { billingType: 'PIX' })).toThrow('checkout CANCELED');
  });

  /** A checkout whose customer started a Pix, and its expiry check done (it found the Pix). */
  async function pixPastExpiry(serviceId: number) {
    const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(serviceId));
    await eventually(() => h.simulator.checkoutUrlFor(serviceId), WAIT_DEADLINE_MS, 'url');
    const checkout = asaas.checkoutFor(checkoutId)!;
    const pix = asaas.pay(checkout, { billingType: 'PIX' });
    const record = (await h.connector.deps.store.get(checkoutId))!;
    const check = await completedJob(
      h.connector.jobs.checkoutQueue,
      jobIds.expire(checkoutId, new Date(record.expiresAt)),
    );
    expect(check.returnvalue).toBe('recheck');
    expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('processing');
    return { checkoutId, pix };
  }

  it('keeps a Pix Asaas still takes processing past the expiry, and finishes when it is paid', async () => {
    const { pix } = await pixPastExpiry(1014);
    expect(h.simulator.accepted('cancel-checkout').filter((c) => c.serviceId === 1014)).toEqual([]);
    asaas.update(pix, 'RECEIVED');
    const hook = await asaas.notify(
      `${h.url}/webhooks/asaas`,
      asaas.event('PAYMENT_RECEIVED', { payment: pix[0]! }),
    );
    expect(hook.body).toMatchObject({ state: 'paid' });
    await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1014),
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(h.simulator.accepted('cancel-checkout').filter((c) => c.serviceId === 1014)).toEqual([]);
  });

  it('cancels once Asaas says the Pix can no longer be paid (OVERDUE)', async () => {
    const { pix } = await pixPastExpiry(1015);
    asaas.update(pix, 'OVERDUE');
    const hook = await asaas.notify(
      `${h.url}/webhooks/asaas`,
      asaas.event('PAYMENT_OVERDUE', { payment: pix[0]! }),
    );
    expect(hook.body).toMatchObject({ state: 'expired' });
    const cancel = await eventually(
      () => h.simulator.accepted('cancel-checkout').find((c) => c.serviceId === 1015),
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1015, reason: 'payment OVERDUE at Asaas' });
  });
});

describe('Asaas as a registry shop’s provider', () => {
  const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
  const asaas = new FakeAsaas();
  let h: Harness;
  beforeAll(async () => {
    await asaas.start();
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN,
        RECONCILE_INTERVAL_MS: '60000',
        // The fake is no official host: the deployment lists it.
        PROVIDER_API_ORIGINS: asaas.url,
      },
    });
  });
  afterAll(async () => {
    await h.stop();
    await asaas.stop();
  });

  const provider = (apiKey = asaas.apiKey) => ({
    name: 'asaas',
    apiKey,
    webhookToken: asaas.webhookToken,
    apiUrl: `${asaas.url}/v3`,
  });

  it('checks the key when the shop is saved, then serves its checkouts and its webhooks', async () => {
    const admin = adminApi(h, ADMIN_TOKEN);
    const platform = {
      email: 'asaas-shop@shops.example.com',
      password: `pw-${randomBytes(6).toString('hex')}`,
      apiKey: `key-${randomBytes(6).toString('hex')}`,
    };
    h.simulator.state.addAccount(platform);
    const document = { id: 'loja-asaas', name: 'Loja Asaas', platform };
    const refused = await admin('/shops', {
      method: 'POST',
      body: JSON.stringify({ ...document, provider: provider('$aact_hmlg_not-this-account') }),
    });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      error: { code: 'SHOP_CREDENTIALS_REJECTED', details: [{ field: 'provider' }] },
    });
    const added = await admin('/shops', {
      method: 'POST',
      body: JSON.stringify({ ...document, provider: provider() }),
    });
    expect(added.status).toBe(201);
    const body = (await added.json()) as {
      checkout_route: { url: string; token: string };
      webhook_url: string;
    };
    expect(body.webhook_url).toBe(`${h.url}/webhooks/asaas/loja-asaas`);
    const listing = await (await admin('/shops/loja-asaas')).text();
    expect(listing).not.toContain(asaas.apiKey);
    expect(listing).not.toContain(asaas.webhookToken);
    await h.connector.registry.refresh();

    const opened = await requestOnRoute(body.checkout_route, 1011);
    expect(opened.status).toBe(202);
    const checkoutId = checkoutIdOf({ body: await opened.json() });
    expect(checkoutId).toMatch(/^chk_loja-asaas_/);
    const checkout = await eventually(
      () => asaas.checkoutFor(checkoutId),
      WAIT_DEADLINE_MS,
      'checkout',
    );
    const [payment] = asaas.pay(checkout, { billingType: 'CREDIT_CARD' });
    const event = asaas.event('PAYMENT_CONFIRMED', { payment: payment! });
    // The env shop's route is not this shop's: its checkouts are not found there.
    expect((await asaas.notify(`${h.url}/webhooks/asaas`, event)).status).toBe(404);
    const answer = await asaas.notify(body.webhook_url, event);
    expect(answer.body).toEqual({ received: true, checkout_id: checkoutId, state: 'paid' });
    const finish = await eventually(
      () =>
        h.simulator
          .accepted('finish-checkout')
          .find((c) => c.serviceId === 1011 && c.account === platform.email),
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toEqual({ service_id: 1011, transaction_id: payment!.id });
  });
});
