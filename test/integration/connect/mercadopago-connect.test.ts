import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { runCliCaptured } from '../../support/cli';
import { addSandboxShop, adminApi, Browser } from '../../support/connect-shops';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { eventually, startHarness, type Harness } from '../../support/harness';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * Connecting a shop's Mercado Pago account without pasted keys (CONTRACT "Connecting a shop's
 * provider account"): the vendor makes a link, the owner follows it and authorizes the vendor's
 * application at Mercado Pago (a loopback fake written from its OAuth reference), and the shop
 * takes payments on its own account, with the vendor's fee as marketplace_fee, to a finish at
 * the platform. A revoked grant is seen, said and fixed with a new link.
 */
const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

describe("connecting a shop's Mercado Pago account by OAuth", () => {
  let redis: TestRedis;
  let mp: FakeMercadoPago;
  let h: Harness;

  const admin = adminApi(() => h, ADMIN_TOKEN);
  /** The owners' browser: the link's button and the provider's redirect back, with its cookie. */
  const owner = new Browser();
  /** Adds a shop on the sandbox, to be connected; answers its route token and account. */
  const addShop = (id: string) => addSandboxShop(h, admin, id, `Marcenaria ${id}`);

  /** A link for the shop, followed through Mercado Pago's consent to the callback's page. */
  async function connect(shop: string, userId?: number) {
    const made = await admin(`/shops/${shop}/connect`, {
      method: 'POST',
      body: JSON.stringify({ provider: 'mercadopago' }),
    });
    expect(made.status).toBe(201);
    const link = (await made.json()) as { url: string; expires_at: string };
    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    const start = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
    expect(start.status).toBe(303);
    const authorize = start.headers.get('location') ?? '';
    const callback = mp.approve(authorize, userId === undefined ? {} : { userId });
    const done = await owner.fetch(callback, { redirect: 'manual' });
    return { link, html, authorize, callback, done, doneHtml: await done.text() };
  }

  const shopView = async (shop: string) =>
    (await (await admin(`/shops/${shop}`)).json()) as Record<string, unknown> & {
      provider: Record<string, unknown>;
    };

  /** The environment a CLI beside the deployment runs with. */
  const cliEnv = () => ({
    REDIS_URL: redis.url,
    QUEUE_PREFIX: h.prefix,
    SHOP_SECRET_KEYS: KEYS,
    PUBLIC_URL: h.url,
    MERCADOPAGO_CLIENT_ID: mp.application.clientId,
    MERCADOPAGO_CLIENT_SECRET: mp.application.clientSecret,
    MERCADOPAGO_WEBHOOK_SECRET: mp.webhookSecret,
    MERCADOPAGO_API_URL: mp.url,
    PROVIDER_API_ORIGINS: mp.url,
    PLATFORM_BASE_URL: h.platformUrl,
  });

  beforeAll(async () => {
    redis = await startTestRedis();
    mp = new FakeMercadoPago();
    await mp.start();
    h = await startHarness({
      redis,
      env: {
        SHOP_SECRET_KEYS: KEYS,
        ADMIN_TOKEN,
        SHOP_REFRESH_MS: '200',
        MERCADOPAGO_CLIENT_ID: mp.application.clientId,
        MERCADOPAGO_CLIENT_SECRET: mp.application.clientSecret,
        MERCADOPAGO_WEBHOOK_SECRET: mp.webhookSecret,
        MERCADOPAGO_AUTH_URL: mp.url,
        MERCADOPAGO_API_URL: mp.url,
        PROVIDER_API_ORIGINS: mp.url,
        VENDOR_FEE_PERCENT: '2.5',
        VENDOR_FEE_FIXED: '0.50',
        RECONCILE_INTERVAL_MS: '500',
      },
      start: { produceBackoffMs: 50 },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await mp?.stop();
    await redis?.close();
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

  it('connects the account, shows no token anywhere, and the used link is a 404 page', async () => {
    const { platform } = await addShop('bela');
    const { link, done, doneHtml } = await connect('bela', 7001);
    expect(done.status).toBe(200);
    expect(doneHtml).toContain('Conta conectada');
    expect(doneHtml).toContain('Marcenaria bela');

    const view = await shopView('bela');
    expect(view.provider).toEqual({
      name: 'mercadopago',
      connection: 'oauth',
      account: '7001',
      connectedAt: expect.any(String),
      expiresAt: expect.any(String),
      publicKey: expect.stringMatching(/^APP_USR-/),
      apiUrl: mp.url,
    });
    // 180 days, as Mercado Pago's token answer says.
    const days = (Date.parse(String(view.provider.expiresAt)) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(180);

    // The tokens are sealed in Redis, never in a log line or an answer.
    const tokenRequests = mp.tokenRequests.filter((call) => call.ok);
    expect(tokenRequests.map((call) => call.grantType)).toContain('authorization_code');
    const dump = await redisDump();
    const accessToken = new RegExp(`APP_USR-${mp.application.clientId}-\\d{6}-[0-9a-f]{32}`);
    expect(dump).not.toMatch(accessToken);
    expect(dump).not.toMatch(/TG-[0-9a-f]{24}/);
    expect(h.log.text()).not.toMatch(accessToken);
    expect(h.log.text()).not.toMatch(/TG-[0-9a-f]{24}/);
    expect(JSON.stringify(view)).not.toMatch(accessToken);
    // Every process sees the change within SHOP_REFRESH_MS; the gauge reads what it serves.
    const metrics = await eventually(async () => {
      const text = await (await fetch(`${h.url}/metrics`)).text();
      return text.includes('connector_credential_expiry_timestamp_seconds{shop="bela"')
        ? text
        : undefined;
    });
    expect(metrics).not.toMatch(accessToken);
    expect(metrics).not.toMatch(/TG-[0-9a-f]{24}/);

    // The link's token is the right to connect the shop: never in a log line (the access log
    // says /connect/:token).
    const linkToken = link.url.split('/').at(-1) ?? '';
    expect(h.log.text()).not.toContain(linkToken);
    expect(h.log.text()).toContain('/connect/:token');
    // Used once: the link and its button are gone.
    expect((await fetch(link.url)).status).toBe(404);
    const again = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('Link inválido');
    expect(platform.email).toBe('bela@shops.example.com');
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

  it('a token refused with 401 is renewed once and the call retried: the checkout goes on', async () => {
    const { platform, route } = await addShop('dunas');
    await connect('dunas', 7003);
    const before = await shopView('dunas');
    mp.lapseAccessTokens(7003);
    const refreshes = () =>
      mp.tokenRequests.filter((call) => call.grantType === 'refresh_token').length;
    const refreshedBefore = refreshes();
    const answer = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
      body: JSON.stringify({ service_id: 1004 }),
    });
    expect(answer.status).toBe(202);
    await eventually(() =>
      h.simulator
        .accepted('checkout-url')
        .find((c) => c.account === platform.email && c.serviceId === 1004),
    );
    expect(refreshes()).toBe(refreshedBefore + 1);
    const after = await shopView('dunas');
    expect(after.provider.expiresAt).not.toBe(before.provider.expiresAt);
    const audit = (await (await admin('/shops/dunas/audit')).json()) as {
      entries: Array<{ action: string; fields: string[] }>;
    };
    expect(audit.entries[0]).toMatchObject({
      action: 'credential-renewed',
      fields: expect.arrayContaining(['provider.accessToken', 'provider.refreshToken']),
    });
  });

  it('a revoked grant marks the shop needs_reconnect: 503 at once, the gauge is 1, a new link fixes it', async () => {
    const { route } = await addShop('esteio');
    await connect('esteio', 7004);
    mp.revokeGrant(7004);
    const call = () =>
      fetch(route.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
        body: JSON.stringify({ service_id: 1005 }),
      });
    // The first checkout meets the 401; its renewal is refused (invalid_grant).
    expect((await call()).status).toBe(202);
    const view = await eventually(async () => {
      const shown = await shopView('esteio');
      return shown.needs_reconnect ? shown : undefined;
    });
    expect(view.needs_reconnect).toEqual({
      since: expect.any(String),
      reason: expect.stringContaining('invalid_grant'),
    });
    // From now on no checkout is started.
    await eventually(async () => ((await call()).status === 503 ? true : undefined));
    const refused = (await (await call()).json()) as { error: { code: string } };
    expect(refused.error.code).toBe('SHOP_NEEDS_RECONNECT');
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toContain('connector_shop_needs_reconnect{shop="esteio"} 1');
    expect(metrics).toMatch(
      /connector_credential_expiry_timestamp_seconds\{shop="esteio",kind="oauth_access_token"\} \d+/,
    );
    const list = (await (await admin('/shops')).json()) as {
      shops: Array<{ id: string; needs_reconnect?: unknown }>;
    };
    expect(list.shops.find((shop) => shop.id === 'esteio')?.needs_reconnect).toBeDefined();

    const doctor = await runCliCaptured(['doctor'], cliEnv());
    expect(doctor.stdout).toMatch(
      /FAIL\s+shop esteio\s+must connect again since .*SHOP_NEEDS_RECONNECT/,
    );
    expect(doctor.stdout).toContain('connector shops connect esteio --provider mercadopago');
    const listed = await runCliCaptured(['shops', 'list'], cliEnv());
    expect(listed.stdout).toMatch(/esteio\s+needs reconnect/);
    expect(listed.stdout).toContain('connector shops connect esteio --provider mercadopago');

    // A new link (the CLI's, this time), the owner authorizes again: served again.
    const made = await runCliCaptured(
      ['shops', 'connect', 'esteio', '--provider', 'mercadopago', '--json'],
      cliEnv(),
    );
    expect(made.code).toBe(0);
    const link = JSON.parse(made.stdout) as { url: string; expires_at: string };
    const start = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
    const done = await owner.fetch(
      mp.approve(start.headers.get('location') ?? '', { userId: 7004 }),
    );
    expect(done.status).toBe(200);
    expect((await shopView('esteio')).needs_reconnect).toBeUndefined();
    await eventually(async () => ((await call()).status === 202 ? true : undefined));
    const healed = await (await fetch(`${h.url}/metrics`)).text();
    expect(healed).toContain('connector_shop_needs_reconnect{shop="esteio"} 0');
  });

  it('a provider that keeps refusing the token: one renewal and one retry, then the checkout is abandoned', async () => {
    const { platform, route } = await addShop('gameleira');
    await connect('gameleira', 7005);
    mp.refuseAccessTokensOf(7005);
    const refreshes = () =>
      mp.tokenRequests.filter((call) => call.grantType === 'refresh_token').length;
    const before = refreshes();
    const answer = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
      body: JSON.stringify({ service_id: 1009 }),
    });
    expect(answer.status).toBe(202);
    // A refusal is no transient failure: the checkout is abandoned and the platform told.
    await eventually(() =>
      h.simulator
        .accepted('cancel-checkout')
        .find((c) => c.account === platform.email && c.serviceId === 1009),
    );
    expect(refreshes()).toBe(before + 1);
  });

  it('a worker renews a token that is due when it starts (and every 15 minutes after)', async () => {
    // Mercado Pago grants this seller a token of 20 days: within CREDENTIAL_RENEW_BEFORE (30d).
    mp.tokenLifetimeSeconds = 20 * 86_400;
    try {
      await addShop('sapucaia');
      await connect('sapucaia', 7006);
    } finally {
      mp.tokenLifetimeSeconds = 15_552_000;
    }
    const before = await shopView('sapucaia');
    const refreshes = () =>
      mp.tokenRequests.filter((call) => call.grantType === 'refresh_token' && call.ok).length;
    const refreshed = refreshes();
    // Another process starts: its workers' first pass finds the token due and renews it.
    await h.addConnector();
    const after = await eventually(async () => {
      const shown = await shopView('sapucaia');
      return shown.provider.expiresAt !== before.provider.expiresAt ? shown : undefined;
    });
    const days = (Date.parse(String(after.provider.expiresAt)) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(180);
    expect(refreshes()).toBe(refreshed + 1);
  });

  it('a link of a shop removed and added again connects nothing: a 404 page', async () => {
    await addShop('ipe');
    const made = await admin('/shops/ipe/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'mercadopago' }),
    });
    const { url } = (await made.json()) as { url: string };
    expect((await admin('/shops/ipe', { method: 'DELETE' })).status).toBe(204);
    await addShop('ipe');
    expect((await fetch(url)).status).toBe(404);
    const start = await owner.fetch(`${url}/start`, { method: 'POST', redirect: 'manual' });
    expect(start.status).toBe(404);
    expect((await shopView('ipe')).provider).toEqual({ name: 'sandbox' });
  });

  it('unknown, malformed and expired-by-use links are 404 pages, never a 500', async () => {
    for (const path of [
      '/connect/nope',
      `/connect/${'A'.repeat(43)}`,
      '/connect/mercadopago/callback?state=x&code=y',
    ]) {
      const response = await fetch(`${h.url}${path}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      expect(await response.text()).toContain('Link inválido');
    }
  });

  it('the owner who cancels at Mercado Pago changes nothing, and the link still works', async () => {
    await addShop('freijo');
    const made = await admin('/shops/freijo/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'mercadopago' }),
    });
    const link = (await made.json()) as { url: string };
    const start = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
    const cancelled = await owner.fetch(mp.deny(start.headers.get('location') ?? ''));
    expect(cancelled.status).toBe(200);
    expect(await cancelled.text()).toContain('Conexão cancelada');
    expect((await shopView('freijo')).provider).toEqual({ name: 'sandbox' });
    expect((await fetch(link.url)).status).toBe(200);
  });

  it('refuses a vendor fee for a shop with pasted keys, and a connection written by hand', async () => {
    await addShop('goncalo');
    const fee = await admin('/shops/goncalo', {
      method: 'PATCH',
      body: JSON.stringify({ vendorFee: { percent: 1 } }),
    });
    expect(fee.status).toBe(400);
    expect(JSON.stringify(await fee.json())).toContain('vendorFee');
    const byHand = await admin('/shops/goncalo', {
      method: 'PATCH',
      body: JSON.stringify({
        provider: {
          name: 'mercadopago',
          connection: 'oauth',
          account: '1',
          accessToken: 'APP_USR-1',
        },
      }),
    });
    expect(byHand.status).toBe(400);
    expect(JSON.stringify(await byHand.json())).toContain('provider.connection');
    const env = await admin('/shops/default/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'mercadopago' }),
    });
    // The env shop is its variables: there is nothing to store a connection in.
    expect(env.status).toBe(400);
    expect(JSON.stringify(await env.json())).toContain('env shop');
    const pix = await admin('/shops/goncalo/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'pix' }),
    });
    expect(pix.status).toBe(400);
    expect(JSON.stringify(await pix.json())).toContain('"field":"provider"');
  });

  /** Every key and value under the test's prefix, as one text. */
  async function redisDump(): Promise<string> {
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys(`*${h.prefix}*`);
      const parts: string[] = [];
      for (const key of keys) {
        const type = await client.type(key);
        if (type === 'string') parts.push(key, (await client.get(key)) ?? '');
        else if (type === 'hash') parts.push(key, JSON.stringify(await client.hgetall(key)));
        else if (type === 'list') parts.push(key, JSON.stringify(await client.lrange(key, 0, -1)));
        else parts.push(key);
      }
      return parts.join('\n');
    } finally {
      await client.quit();
    }
  }
});
