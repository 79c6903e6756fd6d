import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { BullmqProviderJobs } from '../../../src/jobs/bullmq-provider-jobs';
import { startProviderWorker } from '../../../src/jobs/provider-workers';
import type { ProviderDocument } from '../../../src/payments/provider-fields';
import { NO_VENDOR, type VendorAccounts } from '../../../src/payments/vendor-accounts';
import { parseKeyring, type Keyring } from '../../../src/secrets/secret-box';
import { ConnectLinks } from '../../../src/connect/connect-links';
import { ShopAdmin } from '../../../src/shop-registry/shop-admin';
import { ShopCredentials } from '../../../src/shop-registry/shop-credentials';
import { credentialFingerprint } from '../../../src/shop-registry/shop-settings';
import { openShop } from '../../../src/shop-registry/stored-shop';
import { closeRedis, createRedis } from '../../../src/redis/redis';
import { RedisConnectStore } from '../../../src/store/redis-connect-store';
import { RedisShopRegistry } from '../../../src/store/redis-shop-registry';
import { RedisShopWork } from '../../../src/store/redis-shop-work';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { captureLog } from '../../support/log-capture';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * A connected shop's token kept alive (CONTRACT "Credentials stay alive"), against a loopback
 * Mercado Pago whose refresh tokens are single use: two processes (each its own Redis connection
 * and registry, as two deployments' processes have) renew one shop with exactly one refresh call;
 * an answer lost between Mercado Pago and the store is never a silent dead shop; a year of moved
 * clock renews ahead of every expiry; the previous release, renewing under a lock of its own,
 * beside this one is never taken for a revoked grant.
 */
const DAY = 86_400_000;
/** The nonce of the owner's browser's connect cookie (the routes set it; here the use case is called). */
const BROWSER = randomBytes(32).toString('base64url');

describe("a connected shop's credential over its life", () => {
  let redis: TestRedis;
  let mp: FakeMercadoPago;
  const clients: Redis[] = [];
  const closing: Array<() => Promise<void>> = [];
  const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`) as Keyring;
  /** The test's clock, shared by the connector's side and Mercado Pago's. */
  let now = Date.parse('2026-12-01T12:00:00Z');
  const clock = () => new Date(now);
  const log = captureLog({ level: 'debug' });
  let vendor: VendorAccounts;

  /** One process: its own connection, registry, providers queue and worker, and credentials. */
  function process(prefix: string, vendorOf = vendor) {
    const client = new Redis(redis.url);
    clients.push(client);
    const store = new RedisShopRegistry(client, prefix);
    const connect = new RedisConnectStore(client, prefix);
    const renewals = new BullmqProviderJobs(client, prefix, {
      logger: log.logger,
      eventsConnection: () => createRedis(redis.url, 'worker', 'test-events'),
    });
    const credentials = new ShopCredentials({
      store,
      keyring,
      renewals,
      vendor: vendorOf,
      providerApiOrigins: [mp.url],
      clock,
      log: log.logger,
    });
    const connection = createRedis(redis.url, 'worker', 'test-worker');
    const none = async () => undefined;
    const worker = startProviderWorker(
      {
        renew: ({ shop, ...request }) => credentials.renewNow(shop, request),
        renewDue: none,
        registerWebhooks: none,
      },
      { connection, prefix, concurrency: 2, lockDurationMs: 30_000, logger: log.logger },
    );
    closing.push(async () => {
      await worker.close();
      await renewals.close();
      await closeRedis(connection);
    });
    const links = new ConnectLinks({
      links: connect,
      store,
      credentials,
      vendor,
      keyring,
      log: log.logger,
      publicUrl: 'http://connector.test',
      clock,
    });
    const admin = new ShopAdmin({
      store,
      keyring,
      // The platform is not this test's subject: every account is taken.
      credentials: { check: async () => [] },
      work: new RedisShopWork(client, prefix),
      publicUrl: 'http://connector.test',
      clock,
      sandboxAllowed: true,
      providerApiOrigins: [mp.url],
    });
    return { store, credentials, links, admin, worker };
  }

  /** A shop connected by the owner through a link; answers the first process and the shop id. */
  async function connectedShop(userId: number) {
    const prefix = `t${randomBytes(4).toString('hex')}`;
    const first = process(prefix);
    const id = `shop-${userId}`;
    await first.admin.add(
      {
        id,
        name: `Loja ${userId}`,
        platform: { email: `${id}@x.example`, password: 'pw', apiKey: 'key' },
        provider: { name: 'sandbox' },
      },
      'test',
    );
    const link = await first.links.create(id, 'mercadopago', 'test');
    const token = link.url.split('/').at(-1) ?? '';
    const callback = new URL(mp.approve(await first.links.start(token, BROWSER), { userId }));
    const done = await first.links.callback(
      'mercadopago',
      'callback',
      {
        code: callback.searchParams.get('code') ?? undefined,
        state: callback.searchParams.get('state') ?? undefined,
      },
      BROWSER,
    );
    expect(done?.outcome).toBe('connected');
    return { prefix, first, id };
  }

  /** The shop's provider document as stored, opened. */
  async function storedProvider(store: RedisShopRegistry, id: string) {
    const entry = await store.get(id);
    if (!entry) throw new Error(`no shop ${id}`);
    return {
      stored: entry.stored,
      provider: openShop(entry.stored, keyring).document.provider as ProviderDocument & {
        accessToken: string;
        refreshToken: string;
        expiresAt: string;
      },
    };
  }

  /** Whether Mercado Pago takes the token now (its clock). */
  async function works(accessToken: string): Promise<boolean> {
    const answer = await fetch(`${mp.url}/users/me`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    await answer.arrayBuffer();
    return answer.status === 200;
  }

  const refreshes = () =>
    mp.tokenRequests.filter((call) => call.grantType === 'refresh_token' && call.ok).length;

  beforeAll(async () => {
    redis = await startTestRedis();
    mp = new FakeMercadoPago();
    mp.clock = clock;
    await mp.start();
    vendor = {
      ...NO_VENDOR,
      accounts: {
        mercadopago: {
          clientId: mp.application.clientId,
          clientSecret: mp.application.clientSecret,
          authUrl: mp.url,
          apiUrl: mp.url,
          webhookSecret: mp.webhookSecret,
        },
      },
    };
  });
  afterAll(async () => {
    for (const close of closing) await close();
    for (const client of clients) await client.quit();
    await mp?.stop();
    await redis?.close();
  });

  it('two processes renewing one shop at once make exactly one refresh call, and both use its pair', async () => {
    const { prefix, first, id } = await connectedShop(8001);
    const second = process(prefix);
    const before = await storedProvider(first.store, id);
    now += 160 * DAY; // 20 days before its expiry: due
    const refreshedBefore = refreshes();
    const outcomes = await Promise.all([
      first.credentials.renew(id, { reason: 'due' }),
      second.credentials.renew(id, { reason: 'due' }),
    ]);
    expect(outcomes.sort()).toEqual(['renewed', 'renewed-elsewhere']);
    expect(refreshes()).toBe(refreshedBefore + 1);
    const after = await storedProvider(second.store, id);
    expect(after.provider.refreshToken).not.toBe(before.provider.refreshToken);
    expect(Date.parse(after.provider.expiresAt)).toBe(now + 180 * DAY);
    expect(await works(after.provider.accessToken)).toBe(true);
    // Again, now not due: nothing is called.
    expect(await second.credentials.renew(id, { reason: 'due' })).toBe('not-due');
    expect(refreshes()).toBe(refreshedBefore + 1);
  });

  it('a 401 seen by two processes with the same stale token renews once', async () => {
    const { prefix, first, id } = await connectedShop(8002);
    const second = process(prefix);
    const stale = credentialFingerprint((await storedProvider(first.store, id)).provider);
    const refreshedBefore = refreshes();
    const outcomes = await Promise.all([
      first.credentials.renew(id, { reason: 'rejected', stale }),
      second.credentials.renew(id, { reason: 'rejected', stale }),
    ]);
    expect(outcomes.sort()).toEqual(['renewed', 'renewed-elsewhere']);
    expect(refreshes()).toBe(refreshedBefore + 1);
    // A third process that saw the stale token later finds it renewed already.
    expect(await process(prefix).credentials.renew(id, { reason: 'rejected', stale })).toBe(
      'renewed-elsewhere',
    );
    expect(refreshes()).toBe(refreshedBefore + 1);
  });

  it('an answer lost between Mercado Pago and the store: the next renewal says needs_reconnect, never a silent dead shop', async () => {
    const { first, id } = await connectedShop(8003);
    now += 170 * DAY;
    // Mercado Pago grants (the refresh token is spent) and the answer never arrives: as if the
    // process had crashed right after it.
    mp.failNextToken('lose-answer');
    await expect(first.credentials.renew(id, { reason: 'due' })).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
    });
    expect((await storedProvider(first.store, id)).stored.needsReconnect).toBeUndefined();
    // The next pass: the stored refresh token is refused for good, and that is said.
    expect(await first.credentials.renew(id, { reason: 'due' })).toBe('needs-reconnect');
    const { stored } = await storedProvider(first.store, id);
    expect(stored.needsReconnect).toEqual({
      since: new Date(now).toISOString(),
      reason: expect.stringContaining('invalid_grant'),
    });
    expect(log.text()).toContain('a connected shop must connect again');
    // The way back: a new link, followed.
    const link = await first.links.create(id, 'mercadopago', 'test');
    const token = link.url.split('/').at(-1) ?? '';
    const callback = new URL(mp.approve(await first.links.start(token, BROWSER), { userId: 8003 }));
    await first.links.callback(
      'mercadopago',
      'callback',
      {
        code: callback.searchParams.get('code') ?? undefined,
        state: callback.searchParams.get('state') ?? undefined,
      },
      BROWSER,
    );
    const back = await storedProvider(first.store, id);
    expect(back.stored.needsReconnect).toBeUndefined();
    expect(await works(back.provider.accessToken)).toBe(true);
  });

  it('a year of days: renewed ahead of every expiry, the token never lapses, two renewals', async () => {
    const { first, id } = await connectedShop(8004);
    const refreshedBefore = refreshes();
    const start = now;
    for (let day = 1; day <= 365; day++) {
      now = start + day * DAY;
      const { provider } = await storedProvider(first.store, id);
      await first.credentials.renewDue([{ id, renews: true, expiresAt: provider.expiresAt }]);
      const current = (await storedProvider(first.store, id)).provider;
      // What is stored is always good for more than CREDENTIAL_RENEW_BEFORE's worth... minus a day.
      expect(Date.parse(current.expiresAt) - now).toBeGreaterThan(29 * DAY);
      if (day % 30 === 0 || day === 365) expect(await works(current.accessToken)).toBe(true);
    }
    // 180-day tokens renewed 30 days ahead: at days 150 and 300.
    expect(refreshes()).toBe(refreshedBefore + 2);
  });

  it('a link lapses after 7 days: its page and its button are refused, as a used one', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}`;
    const one = process(prefix);
    await one.admin.add(
      {
        id: 'lapsing',
        name: 'Loja lapsing',
        platform: { email: 'lapsing@x.example', password: 'pw', apiKey: 'key' },
        provider: { name: 'sandbox' },
      },
      'test',
    );
    const link = await one.links.create('lapsing', 'mercadopago', 'test');
    const token = link.url.split('/').at(-1) ?? '';
    now += 7 * DAY - 60_000;
    await expect(one.links.page(token)).resolves.toMatchObject({ shop: 'lapsing' });
    now += 120_000;
    await expect(one.links.page(token)).rejects.toMatchObject({ code: 'CONNECT_LINK_INVALID' });
    await expect(one.links.start(token, BROWSER)).rejects.toMatchObject({
      code: 'CONNECT_LINK_INVALID',
    });
  });

  it('the secrets a connection stores are sealed: no token in the registry in plaintext', async () => {
    const { prefix, first, id } = await connectedShop(8005);
    const { provider } = await storedProvider(first.store, id);
    const client = clients[0] as Redis;
    const raw = Object.values(await client.hgetall(`{${prefix}:registry}:shops`)).join('\n');
    expect(raw).toContain('"connection":"oauth"');
    expect(raw).not.toContain(provider.accessToken);
    expect(raw).not.toContain(provider.refreshToken);
    expect(log.text()).not.toContain(provider.accessToken);
    expect(log.text()).not.toContain(provider.refreshToken);
  });
  it('the previous release renews beside this one (its own lock): a refresh refused since is renewed elsewhere, never needs_reconnect', async () => {
    const { prefix, first, id } = await connectedShop(8006);
    // Only the process of this release below takes this shop's renewal.
    await first.worker.close();
    now += 160 * DAY;
    const before = await storedProvider(first.store, id);
    const fingerprint = credentialFingerprint(before.provider);
    // The previous release renewed under a lock this one never takes: a renewal of its own,
    // stored, between this release's read of the credential and its refresh call.
    const previous = new ShopCredentials({
      store: first.store,
      keyring,
      vendor,
      providerApiOrigins: [mp.url],
      clock,
      log: log.logger,
    });
    const proxy = await tokenProxy(mp.url, () =>
      previous.renewNow(id, { reason: 'due', fingerprint }),
    );
    const account = vendor.accounts.mercadopago as NonNullable<typeof vendor.accounts.mercadopago>;
    const ours = process(prefix, {
      ...vendor,
      accounts: { mercadopago: { ...account, apiUrl: proxy.url } },
    });
    const refreshedBefore = refreshes();
    try {
      expect(await ours.credentials.renew(id, { reason: 'due' })).toBe('renewed-elsewhere');
    } finally {
      await proxy.close();
    }
    // One refresh granted (the previous release's), one refused (this release's spent token).
    expect(refreshes()).toBe(refreshedBefore + 1);
    expect(mp.tokenRequests.at(-1)).toMatchObject({ grantType: 'refresh_token', ok: false });
    const after = await storedProvider(ours.store, id);
    expect(after.stored.needsReconnect).toBeUndefined();
    expect(after.provider.refreshToken).not.toBe(before.provider.refreshToken);
    expect(await works(after.provider.accessToken)).toBe(true);
    const told = log.entries().filter((entry) => entry.shop === id);
    expect(told.map((entry) => entry.message)).not.toContain(
      'a connected shop must connect again: its provider refused it',
    );
  });
});

/**
 * Mercado Pago (at `target`) behind a loopback proxy: the first request waits for `first` (the
 * previous release's renewal) to end, then every request goes on as it came.
 */
async function tokenProxy(
  target: string,
  first: () => Promise<unknown>,
): Promise<{ url: string; close(): Promise<void> }> {
  let firstDone: Promise<unknown> | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        await (firstDone ??= first());
        const answer = await fetch(`${target}${req.url ?? '/'}`, {
          method: req.method ?? 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
          body: Buffer.concat(chunks),
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
