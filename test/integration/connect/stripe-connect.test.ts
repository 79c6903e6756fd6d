import { randomBytes } from 'node:crypto';
import { addSandboxShop, adminApi, Browser } from '../../support/connect-shops';
import { FakeStripe } from '../../support/fake-stripe';
import { eventually, settled, startHarness, type Harness } from '../../support/harness';

/*
 * Connecting a shop's Stripe account as an Express account of the vendor's platform (CONTRACT
 * "Connecting a shop's provider account"): the link's button creates the account and sends the
 * owner to Stripe's onboarding; the shop is connected once Stripe enables charges (on the owner's
 * return, or by the Connect event account.updated); its checkouts are direct charges
 * (Stripe-Account) with the vendor's application_fee_amount; Connect events, routed by their
 * account, settle that shop's checkouts and never another's. Against a loopback Stripe written
 * from its reference.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

describe("connecting a shop's Stripe account with Connect", () => {
  let stripe: FakeStripe;
  let h: Harness;

  const admin = adminApi(() => h, ADMIN_TOKEN);
  /** The owners' browser: the link's button and the provider's redirect back, with its cookie. */
  const owner = new Browser();
  const connectEndpoint = () => `${h.url}/webhooks/stripe-connect`;

  const addShop = (id: string) => addSandboxShop(h, admin, id);

  /** The link's button pressed: answers the onboarding URL and the account it made. */
  async function startOnboarding(shop: string) {
    const made = await admin(`/shops/${shop}/connect`, {
      method: 'POST',
      body: JSON.stringify({ provider: 'stripe' }),
    });
    expect(made.status).toBe(201);
    const { url } = (await made.json()) as { url: string };
    const start = await owner.fetch(`${url}/start`, { method: 'POST', redirect: 'manual' });
    expect(start.status).toBe(303);
    const onboarding = start.headers.get('location') ?? '';
    const linkId = new URL(onboarding).pathname.split('/').at(-1) ?? '';
    const account = stripe.accountLinks.get(linkId)?.account ?? '';
    return { url, onboarding, account, linkId };
  }

  const shopView = async (shop: string) =>
    (await (await admin(`/shops/${shop}`)).json()) as { provider: Record<string, unknown> };

  async function checkoutOf(
    route: { url: string; token: string },
    email: string,
    serviceId: number,
  ) {
    const answer = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
      body: JSON.stringify({ service_id: serviceId }),
    });
    expect(answer.status).toBe(202);
    const call = await eventually(() =>
      h.simulator
        .accepted('checkout-url')
        .find((c) => c.account === email && c.serviceId === serviceId),
    );
    const url = (call.body as { checkout_url?: string }).checkout_url;
    const session = [...stripe.sessions.values()].find((s) => s.url === url);
    if (!session) throw new Error('no Checkout Session for the URL');
    return session;
  }

  beforeAll(async () => {
    stripe = new FakeStripe();
    await stripe.start();
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN,
        SHOP_REFRESH_MS: '200',
        STRIPE_CONNECT_SECRET_KEY: stripe.secretKey,
        STRIPE_CONNECT_WEBHOOK_SECRET: stripe.connectWebhookSecret,
        STRIPE_API_URL: stripe.url,
        PROVIDER_API_ORIGINS: stripe.url,
        VENDOR_FEE_PERCENT: '1.5',
        VENDOR_FEE_FIXED: '0.30',
        RECONCILE_INTERVAL_MS: '500',
      },
      start: { produceBackoffMs: 50 },
    });
    stripe.connectWebhookUrl = connectEndpoint();
  });
  afterAll(async () => {
    await h?.stop();
    await stripe?.stop();
  });

  it('onboards an Express account; back from Stripe, connected; direct charges carry the fee, to a finish', async () => {
    const { platform, route } = await addShop('peroba');
    const { url, onboarding, account } = await startOnboarding('peroba');
    expect(stripe.accounts.get(account)).toMatchObject({ type: 'express', country: 'BR' });
    // The button pressed again: the same account, a new onboarding link.
    const again = await owner.fetch(`${url}/start`, { method: 'POST', redirect: 'manual' });
    const againId = new URL(again.headers.get('location') ?? '').pathname.split('/').at(-1) ?? '';
    expect(stripe.accountLinks.get(againId)?.account).toBe(account);
    // The owner completes Stripe's onboarding page; Stripe sends the browser back to us.
    const page = await fetch(onboarding);
    expect(page.status).toBe(200);
    const form = await fetch(onboarding, { method: 'POST', redirect: 'manual' });
    const back = form.headers.get('location') ?? '';
    expect(back).toMatch(new RegExp(`^${h.url}/connect/stripe/return\\?state=`));
    const done = await owner.fetch(back);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Conta conectada');
    expect((await shopView('peroba')).provider).toEqual({
      name: 'stripe',
      connection: 'connect',
      account,
      connectedAt: expect.any(String),
      apiUrl: stripe.url,
    });
    expect((await fetch(url)).status).toBe(404);

    const session = await checkoutOf(route, platform.email, 1007);
    expect(stripe.accountOf(session.id)).toBe(account);
    const amount = session.amount_total ?? 0;
    expect(session.application_fee_amount).toBe(Math.floor((amount * 150 + 5_000) / 10_000) + 30);
    stripe.pay(session.id, 'card');
    const delivered = await stripe.deliver(
      connectEndpoint(),
      stripe.event('checkout.session.completed', stripe.session(session.id)),
    );
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ state: expect.any(String) });
    await eventually(() =>
      h.simulator
        .accepted('finish-checkout')
        .find((c) => c.account === platform.email && c.serviceId === 1007),
    );
  });

  it('back before Stripe enabled charges: pending, then connected by account.updated', async () => {
    await addShop('sucupira');
    const { onboarding, account } = await startOnboarding('sucupira');
    // The owner comes back with onboarding unfinished (Stripe's return URL is followed anyway).
    const returnUrl =
      [...stripe.accountLinks.values()].find((l) => l.account === account)?.return_url ?? '';
    const early = await owner.fetch(returnUrl);
    expect(early.status).toBe(200);
    expect(await early.text()).toContain('Quase lá');
    expect((await shopView('sucupira')).provider).toEqual({ name: 'sandbox' });
    // Stripe enables charges later; its account.updated connects the shop.
    expect(onboarding).toContain('/onboarding/');
    await stripe.completeOnboarding(account);
    const view = await eventually(async () => {
      const shown = await shopView('sucupira');
      return shown.provider.connection === 'connect' ? shown : undefined;
    });
    expect(view.provider.account).toBe(account);
  });

  it("a Connect event of one shop's account never settles another shop's checkout", async () => {
    const a = await addShop('angelim');
    const b = await addShop('guarita');
    for (const shop of ['angelim', 'guarita']) {
      const { account } = await startOnboarding(shop);
      await stripe.completeOnboarding(account);
      await eventually(async () =>
        (await shopView(shop)).provider.connection === 'connect' ? true : undefined,
      );
    }
    const sessionA = await checkoutOf(a.route, a.platform.email, 1008);
    await checkoutOf(b.route, b.platform.email, 1008);
    const accountB = String((await shopView('guarita')).provider.account);
    stripe.pay(sessionA.id, 'card');
    // Shop A's session, claimed by an event of B's account: B's provider reads it as B, where
    // it does not exist, so nothing is settled.
    const forged = await stripe.deliver(
      connectEndpoint(),
      stripe.event('checkout.session.completed', stripe.session(sessionA.id), {
        account: accountB,
      }),
    );
    expect(forged.status).toBe(200);
    expect(forged.body).toEqual({ received: true, ignored: 'unknown payment' });
    // The event of A's own account settles A's checkout; B's, for the same service, stays open.
    const genuine = await stripe.deliver(
      connectEndpoint(),
      stripe.event('checkout.session.completed', stripe.session(sessionA.id)),
    );
    // Paid, or already reported if a reconciler pass learned it first on a loaded machine.
    expect(['paid', 'reported']).toContain(genuine.body.state);
    await eventually(() =>
      h.simulator
        .accepted('finish-checkout')
        .find((c) => c.account === a.platform.email && c.serviceId === 1008),
    );
    await settled(h.connector.jobs);
    expect(
      h.simulator
        .accepted('finish-checkout')
        .filter((c) => c.serviceId === 1008)
        .map((c) => c.account),
    ).toEqual([a.platform.email]);
    // A bad signature changes nothing either.
    const unsigned = await stripe.deliver(
      connectEndpoint(),
      stripe.event('checkout.session.completed', stripe.session(sessionA.id)),
      { secret: 'whsec_wrong' },
    );
    expect(unsigned.status).toBe(400);
  });
});
