import { Queue, QueueEvents } from 'bullmq';
import { QUEUES } from '../../../src/jobs/queue-names';
import { queuePrefix } from '../../../src/redis/keyspace';
import { closeRedis, createRedis } from '../../../src/redis/redis';
import { runCliCaptured } from '../../support/cli';
import { mercadoPagoConnectWorld } from '../../support/connect-worlds';
import type { FakeMercadoPago } from '../../support/fake-mercadopago';
import { eventually, type Harness } from '../../support/harness';

/*
 * Connecting a shop's Mercado Pago account without pasted keys (CONTRACT "Connecting a shop's
 * provider account"), the way it goes: the vendor makes a link, the owner follows it and
 * authorizes the vendor's application at Mercado Pago (a loopback fake written from its OAuth
 * reference), and the shop takes payments on its own account, with the vendor's fee as
 * marketplace_fee, to a finish at the platform; a token due for renewal is renewed by a worker.
 * What is refused or fails (a revoked grant, a refused token, a bad link, a cancelled consent) is
 * mercadopago-connect.errors.test.ts's; tokens kept out of sight and links used once are
 * mercadopago-connect.security.test.ts's.
 */
describe("connecting a shop's Mercado Pago account by OAuth", () => {
  const world = mercadoPagoConnectWorld();
  const { admin, owner, addShop, connect, shopView, cliEnv } = world;
  let h: Harness;
  let mp: FakeMercadoPago;
  beforeAll(() => {
    h = world.h;
    mp = world.mp;
  });

  it('a link names the shop and the provider, has one button, and leads to an authorization with PKCE', async () => {
    await addShop('aurora');
    const made = await admin('/shops/aurora/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'mercadopago' }),
    });
    expect(made.status).toBe(201);
    const link = (await made.json()) as { url: string; expires_at: string };
    expect(link.url).toMatch(new RegExp(`^${h.url}/connect/[A-Za-z0-9_-]{43}$`));
    // Valid 7 days.
    const days = (Date.parse(link.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('lang="pt-BR"');
    expect(html).toContain('Marcenaria aurora');
    expect(html).toContain('Mercado Pago');
    expect(html.match(/<button/g)).toHaveLength(1);

    const start = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${mp.url}/authorization`);
    expect(Object.fromEntries(authorize.searchParams)).toEqual({
      client_id: mp.application.clientId,
      response_type: 'code',
      platform_id: 'mp',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      redirect_uri: `${h.url}/connect/mercadopago/callback`,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
  });

  it("takes a payment on the owner's account with the vendor's fee, to a finish at the platform", async () => {
    const { platform, route } = await addShop('cedro');
    await connect('cedro', 7002);
    // The change is served within SHOP_REFRESH_MS; the route reads the shop as stored now.
    const answer = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
      body: JSON.stringify({ service_id: 1003 }),
    });
    expect(answer.status).toBe(202);
    const checkoutUrl = await eventually(() => {
      const call = h.simulator
        .accepted('checkout-url')
        .filter((c) => c.account === platform.email && c.serviceId === 1003)
        .at(-1);
      return (call?.body as { checkout_url?: string } | undefined)?.checkout_url;
    });
    const preference = [...mp.preferences.values()].find((p) => p.init_point === checkoutUrl);
    if (!preference) throw new Error('no preference for the checkout URL');
    // The seller's own account, the vendor's fee: 2.5 % rounded half up, plus R$ 0,50.
    expect(preference.collector_id).toBe(7002);
    const amountMinor = Math.round((preference.items[0]?.unit_price ?? 0) * 100);
    const feeMinor = Math.floor((amountMinor * 250 + 5_000) / 10_000) + 50;
    expect(Math.round((preference.marketplace_fee ?? 0) * 100)).toBe(feeMinor);

    const payment = mp.pay(preference, 'approved');
    const notified = await mp.notifyOf(payment);
    expect(notified.status).toBe(200);
    const finish = await eventually(() =>
      h.simulator
        .accepted('finish-checkout')
        .find((c) => c.account === platform.email && c.serviceId === 1003),
    );
    expect(finish.body).toMatchObject({ service_id: 1003 });
    const record = await eventually(async () => {
      const checkoutId = preference.external_reference;
      const runtime = await h.connector.directory.byId('cedro');
      const found = await runtime?.deps.store.get(checkoutId);
      return found?.state === 'reported' ? found : undefined;
    });
    expect(record.vendorFee).toEqual({ amountMinor: feeMinor, currency: 'BRL' });
    // `checkout status` tells it, in its table and its JSON.
    const status = await runCliCaptured(
      ['checkout', 'status', '1003', '--shop', 'cedro', '--format', 'json'],
      cliEnv(),
    );
    expect(status.code).toBe(0);
    const [story] = JSON.parse(status.stdout) as Array<{ vendor_fee?: unknown }>;
    expect(story?.vendor_fee).toEqual({ amount_minor: feeMinor, currency: 'BRL' });
    // `shops verify` tries the connected account's token at Mercado Pago.
    const verified = await runCliCaptured(['shops', 'verify', 'cedro'], cliEnv());
    expect(verified).toMatchObject({ code: 0 });
    expect(verified.stdout).toContain('accept its credentials');
    const table = await runCliCaptured(['checkout', 'status', '1003', '--shop', 'cedro'], cliEnv());
    expect(table.stdout).toMatch(/\(vendor fee R\$\s?\d+,\d{2}\)/);
  });

  it("a renewal pass renews a token that is due, from the registry as stored, not the process's last poll", async () => {
    // The process that runs the pass has not polled since the shop was connected: its poll is
    // stopped here, as a loaded machine delays it (the pass a starting worker queues is taken by
    // whichever worker is free first, often one that has run for long).
    h.connector.registry.stop();
    const connection = createRedis(h.redis.url, 'worker', 'test');
    const prefix = queuePrefix(h.prefix, QUEUES.providers);
    const passes = new Queue(QUEUES.providers, { connection, prefix });
    // QueueEvents reads with a blocking command: a connection of its own, closed here (BullMQ
    // closes only the connections it made).
    const blocking = createRedis(h.redis.url, 'worker', 'test-events');
    const events = new QueueEvents(QUEUES.providers, { connection: blocking, prefix });
    try {
      // Mercado Pago grants this seller a token of 20 days: within CREDENTIAL_RENEW_BEFORE (30d).
      mp.tokenLifetimeSeconds = 20 * 86_400;
      try {
        await addShop('sapucaia');
        await connect('sapucaia', 7006);
      } finally {
        mp.tokenLifetimeSeconds = 15_552_000;
      }
      expect(h.connector.registry.get('sapucaia')?.connection).toBeUndefined();
      const before = await shopView('sapucaia');
      const refreshes = () =>
        mp.tokenRequests.filter((call) => call.grantType === 'refresh_token' && call.ok).length;
      const refreshed = refreshes();
      await events.waitUntilReady();
      // The pass ends once the renewals it queued have ended.
      const pass = await passes.add('renew-due', {});
      await pass.waitUntilFinished(events);
      const after = await shopView('sapucaia');
      expect(after.provider.expiresAt).not.toBe(before.provider.expiresAt);
      const days = (Date.parse(String(after.provider.expiresAt)) - Date.now()) / 86_400_000;
      expect(Math.round(days)).toBe(180);
      expect(refreshes()).toBe(refreshed + 1);
    } finally {
      h.connector.registry.start();
      await events.close();
      await passes.close();
      await closeRedis(blocking);
      await closeRedis(connection);
    }
  });
});
