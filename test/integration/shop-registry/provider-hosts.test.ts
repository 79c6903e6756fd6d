import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { ShopDocument } from '../../../src/shop-registry/shop-document';
import { checkoutRoutePath } from '../../../src/shop/shop-id';
import { runCliCaptured } from '../../support/cli';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';
import { startHarness, type Harness } from '../../support/harness';
import { storeShopAsBefore } from '../../support/legacy-shop';
import { serveOnLoopback } from '../../support/loopback-server';
import { adminApi, newPlatformAccount } from '../../support/registry-shop';

/*
 * The trust boundary of a shop, "Provider hosts" (CONTRACT): the admin token can point a shop's
 * provider only at the provider's official hosts or at an origin the deployment lists in
 * PROVIDER_API_ORIGINS. A listener of an attacker must receive nothing (not the access token,
 * not a probe), no answer repeats what an internal service said, and a shop stored before the
 * rule with a host no longer allowed is kept but not served, with the reason shown.
 */
const KEY = `k1:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const INTERNAL_BODY = 'internal-db-password=hunter2-and-the-rest-of-the-config';

/** A real loopback server that records every request it is sent (the attacker's). */
async function recordingServer(answer: (req: IncomingMessage) => { status: number; body: string }) {
  const received: Array<{ method?: string; url?: string; authorization?: string }> = [];
  const served = await serveOnLoopback((req, res) => {
    received.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
    const { status, body } = answer(req);
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  return { ...served, received };
}

/** A port where nothing listens (connection refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

describe('provider hosts: an admin token reaches only the official hosts and the listed ones', () => {
  let h: Harness;
  const mercadopago = new FakeMercadoPago();
  const stripe = new FakeStripe();
  let attacker: Awaited<ReturnType<typeof recordingServer>>;
  let internal: Awaited<ReturnType<typeof recordingServer>>;
  let resetting: Awaited<ReturnType<typeof serveOnLoopback>>;
  let refusedUrl: string;

  const admin = (path: string, init: RequestInit = {}) => adminApi(h, ADMIN_TOKEN)(path, init);
  const platformOf = (shop: string) => newPlatformAccount(h, shop);
  const mercadopagoOf = (apiUrl: string) => ({
    name: 'mercadopago',
    accessToken: 'APP_USR-1234567890-the-shops-real-token',
    webhookSecret: mercadopago.webhookSecret,
    apiUrl,
  });
  const stripeOf = (apiUrl: string) => ({
    name: 'stripe',
    secretKey: 'sk_live_the_shops_real_key_0123',
    webhookSecret: stripe.webhookSecret,
    apiUrl,
  });
  const post = (id: string, provider: unknown) =>
    admin('/shops', {
      method: 'POST',
      body: JSON.stringify({ id, name: `Loja ${id}`, platform: platformOf(id), provider }),
    });
  /** An answer's error, without its request id (which tells any two answers apart). */
  const errorOf = async (response: Response) => {
    const { error } = (await response.json()) as {
      error: {
        code: string;
        message: string;
        details: Array<{ field: string; problem: string }>;
        request_id?: string;
      };
    };
    const { request_id: _id, ...rest } = error;
    return rest;
  };

  beforeAll(async () => {
    await Promise.all([mercadopago.start(), stripe.start()]);
    attacker = await recordingServer(() => ({ status: 200, body: '{"id":1,"status":"approved"}' }));
    internal = await recordingServer(() => ({
      status: 500,
      body: JSON.stringify({ message: INTERNAL_BODY, error: { message: INTERNAL_BODY } }),
    }));
    resetting = await serveOnLoopback((req) => req.socket.destroy());
    refusedUrl = `http://127.0.0.1:${await closedPort()}`;
    const listed = [mercadopago.url, stripe.url, internal.url, resetting.url, refusedUrl];
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: KEY,
        ADMIN_TOKEN,
        SHOP_REFRESH_MS: '200',
        PROVIDER_API_ORIGINS: listed.join(','),
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await Promise.all([
      mercadopago.stop(),
      stripe.stop(),
      attacker?.close(),
      internal?.close(),
      resetting?.close(),
    ]);
  });

  it.each([
    ['mercadopago', mercadopagoOf],
    ['stripe', stripeOf],
  ] as const)(
    'refuses a %s shop aimed at an unlisted host, naming provider.apiUrl; the host hears nothing',
    async (name, providerOf) => {
      for (const url of [
        attacker.url,
        `${attacker.url}/x?`,
        'http://169.254.169.254/latest',
        'http://[fd00:ec2::254]/',
        'http://2130706433/',
        `https://api.mercadopago.com.${new URL(attacker.url).host}`,
      ]) {
        const added = await post(`hosts-${name}-add`, providerOf(url));
        expect(added.status).toBe(400);
        const error = await errorOf(added);
        expect(error.code).toBe('VALIDATION_FAILED');
        expect(error.details.map((d) => d.field)).toEqual(['provider.apiUrl']);
      }
      const refused = await errorOf(await post(`hosts-${name}-add`, providerOf(attacker.url)));
      expect(refused.details[0]?.problem).toContain('PROVIDER_API_ORIGINS');
      // A shop at a listed host (the fake), then a change aiming it at the attacker.
      const allowed = name === 'mercadopago' ? mercadopagoOf : stripeOf;
      const fake = name === 'mercadopago' ? mercadopago : stripe;
      const keys =
        name === 'mercadopago'
          ? { accessToken: mercadopago.accessToken }
          : { secretKey: stripe.secretKey };
      const id = `hosts-${name}-patch`;
      const added = await post(id, { ...allowed(fake.url), ...keys });
      expect(added.status).toBe(201);
      const patched = await admin(`/shops/${id}`, {
        method: 'PATCH',
        body: JSON.stringify({ provider: { apiUrl: `${attacker.url}/` } }),
      });
      expect(patched.status).toBe(400);
      expect((await errorOf(patched)).details.map((d) => d.field)).toEqual(['provider.apiUrl']);
      const shown = (await (await admin(`/shops/${id}`)).json()) as {
        provider: { apiUrl?: string };
      };
      expect(shown.provider.apiUrl).toBe(fake.url);
      expect(attacker.received).toEqual([]);
    },
  );

  it('answers which service said what status, never its body; network failures look alike', async () => {
    const failed = await post('hosts-internal', mercadopagoOf(`${internal.url}/x?`));
    expect(failed.status).toBe(503);
    const text = JSON.stringify(await failed.json());
    expect(text).toContain('Mercado Pago answered 500');
    expect(text).not.toContain('hunter2');
    expect(internal.received.length).toBeGreaterThan(0);
    const stripeFailed = await post('hosts-internal-s', stripeOf(internal.url));
    expect(stripeFailed.status).toBe(503);
    const stripeText = JSON.stringify(await stripeFailed.json());
    expect(stripeText).toContain('Stripe answered 500');
    expect(stripeText).not.toContain('hunter2');

    const refused = await errorOf(await post('hosts-refused', mercadopagoOf(refusedUrl)));
    const reset = await errorOf(await post('hosts-reset', mercadopagoOf(resetting.url)));
    expect(refused.code).toBe('PROVIDER_UNAVAILABLE');
    expect(refused.message).toContain('could not be reached');
    expect(reset).toEqual(refused);
    const sRefused = await errorOf(await post('hosts-refused-s', stripeOf(refusedUrl)));
    const sReset = await errorOf(await post('hosts-reset-s', stripeOf(resetting.url)));
    expect(sRefused.message).toContain('Stripe could not be reached');
    expect(sReset).toEqual(sRefused);
    // The log keeps what the answer leaves out.
    const logged = JSON.stringify(h.log.entries());
    expect(logged).toContain('ECONNREFUSED');
  });

  it('keeps a stored shop whose host is no longer allowed, serves it not, and says why', async () => {
    // As the previous release would have stored it: any http(s) URL was accepted then.
    const id = 'hosts-legacy';
    const { token, stillStored } = await storeShopAsBefore(h, KEY, {
      id,
      name: 'Loja antiga',
      platform: platformOf(id),
      provider: mercadopagoOf(`${attacker.url}/`) as ShopDocument['provider'],
    });
    await h.connector.registry.refresh();
    expect(h.connector.registry.get(id)).toBeUndefined();
    const opened = await fetch(`${h.url}${checkoutRoutePath(id)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ service_id: 1001 }),
    });
    expect(opened.status).not.toBe(202);
    const logLine = h.log
      .entries()
      .find((entry) => entry.shop === id && String(entry.error).includes('PROVIDER_API_ORIGINS'));
    expect(logLine).toBeDefined();

    const shown = (await (await admin(`/shops/${id}`)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ id, served: false });
    expect(String(shown.problem)).toMatch(/provider\.apiUrl.*PROVIDER_API_ORIGINS/);
    const listed = (await (await admin('/shops')).json()) as {
      shops: Array<Record<string, unknown>>;
    };
    expect(listed.shops.find((shop) => shop.id === id)).toMatchObject({ served: false });

    const cli = await runCliCaptured(['shops', 'list'], {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      PLATFORM_BASE_URL: h.platformUrl,
      PROVIDER_API_ORIGINS: mercadopago.url,
    });
    expect(cli.code).toBe(0);
    const row = cli.stdout.split('\n').find((line) => line.startsWith(id));
    expect(row).toContain('not served');
    expect(cli.stdout).toContain(`${id}: not served: provider.apiUrl`);
    // Nothing was deleted, and nothing reached the attacker's host.
    expect(await stillStored()).toBe(true);
    expect(attacker.received).toEqual([]);
  });
});
