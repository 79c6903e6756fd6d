import { Redis } from 'ioredis';
import { mercadoPagoConnectWorld } from '../../support/connect-worlds';
import type { FakeMercadoPago } from '../../support/fake-mercadopago';
import { eventually, type Harness } from '../../support/harness';
import type { TestRedis } from '../../support/redis-server';

/*
 * Connecting a shop's Mercado Pago account by OAuth (CONTRACT "Connecting a shop's provider
 * account"), kept safe: the tokens Mercado Pago grants are sealed in Redis and never in a log
 * line, an answer or the metrics; a link's token never reaches the log, and a link is used once;
 * a link made for a shop since removed connects nothing when a shop of that id is added again.
 * Against a loopback Mercado Pago written from its OAuth reference.
 */
describe("connecting a shop's Mercado Pago account by OAuth: tokens and links kept safe", () => {
  const world = mercadoPagoConnectWorld();
  const { admin, owner, addShop, connect, shopView } = world;
  let h: Harness;
  let mp: FakeMercadoPago;
  let redis: TestRedis;
  beforeAll(() => {
    h = world.h;
    mp = world.mp;
    redis = world.redis;
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
