import { FakeStripe } from '../../support/fake-stripe';
import { eventually, settled, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';
import { checkoutIdOf, providerSuite } from '../../support/provider-suite';

describe('PAYMENT_PROVIDER=stripe against a loopback Stripe', () => {
  const suite = providerSuite(() => new FakeStripe(), {
    env: { STRIPE_PAYMENT_METHODS: 'card,pix,boleto' },
    start: { produceBackoffMs: 50 },
  });
  let stripe: FakeStripe;
  let h: Harness;
  beforeAll(() => {
    ({ fake: stripe, h } = suite);
  });

  const webhooks = () => `${h.url}/webhooks/stripe`;
  const accepted = suite.accepted.bind(suite);

  /** Asks for a checkout as the platform does; returns the checkout and its Stripe session. */
  async function open(serviceId: number) {
    const { checkoutId, url } = await suite.open(serviceId);
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === checkoutId);
    if (!session) throw new Error(`no Stripe session for ${checkoutId}`);
    expect(url).toBe(session.url);
    return { checkoutId, session };
  }

  it('creates one Checkout Session per checkout, as Stripe documents it', async () => {
    const { checkoutId, session } = await open(1001);
    const record = await h.connector.deps.store.get(checkoutId);
    expect(session).toMatchObject({
      mode: 'payment',
      currency: 'brl',
      amount_total: record?.amount?.amountMinor,
      metadata: { checkout_id: checkoutId, service_id: '1001' },
      allowed_payment_method_types: ['card', 'pix', 'boleto'],
      success_url: `${h.url}/return/stripe?checkout_id=${checkoutId}`,
    });
    const create = stripe.requests.find(
      (r) =>
        r.path === '/v1/checkout/sessions' &&
        (r.body as { client_reference_id?: string }).client_reference_id === checkoutId,
    );
    expect(create?.idempotencyKey).toMatch(new RegExp(`^checkout:${checkoutId}:[0-9a-f]{32}$`));
  });

  it('handles a duplicate event once, and refuses forged, wrongly signed and stale ones', async () => {
    const { checkoutId, session } = await open(1003);
    // The event says paid while Stripe's session is still open: only a verified event may
    // lead the connector to look (and the reconciler, looking meanwhile, finds nothing paid).
    const event = stripe.event('checkout.session.completed', {
      ...session,
      status: 'complete',
      payment_status: 'paid',
    });
    const forged = await stripe.deliver(webhooks(), event, {
      body: event.body.replace('"paid"', '"unpaid"'),
    });
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ error: { code: 'WEBHOOK_SIGNATURE_INVALID' } });
    const wrongSecret = await stripe.deliver(webhooks(), event, { secret: 'whsec_wrong' });
    expect(wrongSecret.status).toBe(400);
    const stale = await stripe.deliver(webhooks(), event, {
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(stale.status).toBe(400);
    expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('url_sent');

    stripe.pay(session.id, 'card');
    expect((await stripe.deliver(webhooks(), event)).body).toMatchObject({ state: 'paid' });
    expect((await stripe.deliver(webhooks(), event)).body).toEqual({
      received: true,
      duplicate: true,
    });
    await settled(h.connector.jobs);
    expect(accepted('finish-checkout', 1003)).toHaveLength(1);
  });

  it('keeps a Pix payment processing until Stripe says it succeeded', async () => {
    const { checkoutId, session } = await open(1004);
    const pending = stripe.pay(session.id, 'pix');
    const first = await stripe.deliver(
      webhooks(),
      stripe.event('checkout.session.completed', pending),
    );
    expect(first.body).toMatchObject({ state: 'processing' });
    // The intent allows card, Pix and boleto: its PaymentMethod (expanded) says it is a Pix.
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('pix');
    const page = await (await fetch(`${h.url}/return/stripe?checkout_id=${checkoutId}`)).text();
    expect(page).toContain('Aguardando o Pix');
    expect(page).not.toMatch(/boleto/i);
    const succeeded = stripe.settle(session.id, true);
    const second = await stripe.deliver(
      webhooks(),
      stripe.event('checkout.session.async_payment_succeeded', succeeded),
    );
    expect(second.body).toMatchObject({ state: 'paid' });
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('pix');
    await eventually(() => accepted('finish-checkout', 1004)[0], WAIT_DEADLINE_MS, 'finish');
  });

  it('keeps a boleto processing as a boleto until Stripe says it was paid', async () => {
    const { checkoutId, session } = await open(1006);
    const issued = stripe.pay(session.id, 'boleto');
    const first = await stripe.deliver(
      webhooks(),
      stripe.event('checkout.session.completed', issued),
    );
    expect(first.body).toMatchObject({ state: 'processing' });
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('boleto');
    const paid = stripe.settle(session.id, true);
    const second = await stripe.deliver(
      webhooks(),
      stripe.event('checkout.session.async_payment_succeeded', paid),
    );
    expect(second.body).toMatchObject({ state: 'paid' });
    expect(await h.connector.deps.store.get(checkoutId)).toMatchObject({
      outcome: 'paid',
      method: 'boleto',
    });
  });

  it('cancels a Pix payment that failed', async () => {
    const { session } = await open(1005);
    stripe.pay(session.id, 'pix');
    const failed = stripe.settle(session.id, false);
    const answer = await stripe.deliver(
      webhooks(),
      stripe.event('checkout.session.async_payment_failed', failed),
    );
    expect(answer.body).toMatchObject({ state: 'declined' });
    const cancel = await eventually(
      () => accepted('cancel-checkout', 1005)[0],
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1005, reason: 'payment failed at Stripe' });
  });

  it('records one outcome when the webhook races the customer coming back', async () => {
    const { checkoutId, session } = await open(1009);
    const paid = stripe.pay(session.id, 'card');
    const event = stripe.event('checkout.session.completed', paid);
    const [answer, page] = await Promise.all([
      stripe.deliver(webhooks(), event),
      fetch(session.success_url).then((res) => res.text()),
      stripe.deliver(webhooks(), stripe.event('checkout.session.completed', paid)),
    ]);
    expect(answer.status).toBe(200);
    expect(page).toContain('Pagamento confirmado');
    await settled(h.connector.jobs);
    expect(accepted('finish-checkout', 1009)).toHaveLength(1);
    expect(
      h.log
        .entries()
        .filter((e) => e.message === 'checkout outcome recorded' && e.checkoutId === checkoutId),
    ).toHaveLength(1);
  });

  it('acknowledges events it does not use', async () => {
    const { session } = await open(1008);
    const answer = await stripe.deliver(webhooks(), stripe.event('customer.created', session));
    expect(answer).toEqual({
      status: 200,
      body: { received: true, ignored: 'event customer.created is not used' },
    });
  });
});

describe('a Stripe checkout nobody pays', () => {
  const suite = providerSuite(() => new FakeStripe(), { start: { expiryMs: 3000 } });
  let stripe: FakeStripe;
  let h: Harness;
  beforeAll(() => {
    ({ fake: stripe, h } = suite);
  });

  it('expires the session at Stripe when the checkout expires, and cancels', async () => {
    const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(1010));
    await eventually(() => h.simulator.checkoutUrlFor(1010), WAIT_DEADLINE_MS, 'url');
    const cancel = await eventually(
      () => h.simulator.accepted('cancel-checkout').find((c) => c.serviceId === 1010),
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1010, reason: 'checkout expired' });
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === checkoutId);
    // Stripe keeps a session open at least 30 minutes: the connector closes it itself.
    expect(session?.status).toBe('expired');
    expect(
      stripe.requests.some((r) => r.path === `/v1/checkout/sessions/${session?.id}/expire`),
    ).toBe(true);
  });
});
