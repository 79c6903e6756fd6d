import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { ConfigError } from '../../../src/config';
import { startConnector } from '../../../src/main/compose';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';
import {
  configOf,
  eventually,
  ROUTE_TOKEN,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';

/*
 * Many shops in one deployment (CONTRACT "Shops"): the admin API and the registry, each shop's
 * own route, token, platform account and sandbox, isolation between them, secrets at rest, key
 * and token rotation, and two processes seeing a change.
 */
const KEY_1 = `k1:${randomBytes(32).toString('base64')}`;
const KEY_2 = `k2:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

const accountOf = (shop: string) => ({
  email: `${shop}@shops.example.com`,
  password: `pw-${shop}-${randomBytes(6).toString('hex')}`,
  apiKey: `key-${shop}-${randomBytes(6).toString('hex')}`,
});

describe('many shops in one deployment', () => {
  let h: Harness;
  const admin = (path: string, init: RequestInit = {}, token = ADMIN_TOKEN) =>
    fetch(`${h.url}/admin/api${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });
  const checkout = (path: string, token: string, serviceId: number, base = h.url) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ service_id: serviceId }),
    });

  /** Adds a sandbox shop whose platform account the simulator knows; answers its 201 body. */
  const addShop = async (id: string) => {
    const platform = accountOf(id);
    h.simulator.state.addAccount(platform);
    const response = await admin('/shops', {
      method: 'POST',
      body: JSON.stringify({ id, name: `Loja ${id}`, platform, provider: { name: 'sandbox' } }),
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as {
      shop: { id: string };
      checkout_route: { url: string; token: string };
      webhook_url: string;
    };
    return { ...body, platform };
  };

  /** The checkout URL the platform received for a service from one shop's account. */
  const urlSentBy = (email: string, serviceId: number) =>
    eventually(() => {
      const call = h.simulator
        .accepted('checkout-url')
        .filter((c) => c.account === email && c.serviceId === serviceId)
        .at(-1);
      return (call?.body as { checkout_url?: string } | undefined)?.checkout_url;
    });

  beforeAll(async () => {
    h = await startHarness({
      // k1 encrypts; k2 is held too, so this process opens what `shops rekey` re-wraps with k2.
      env: { SHOP_SECRET_KEYS: `${KEY_1},${KEY_2}`, ADMIN_TOKEN, SHOP_REFRESH_MS: '200' },
    });
  });
  afterAll(async () => {
    await h.stop();
  });

  it('guards the admin API with its token, and is off without one', async () => {
    expect((await admin('/shops', {}, 'wrong-token-of-the-right-length-0000')).status).toBe(401);
    const missing = await fetch(`${h.url}/admin/api/shops`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    const off = await h.addConnector({ ADMIN_TOKEN: '' });
    expect((await fetch(`${off.url}/admin/api/shops`)).status).toBe(404);
  });

  it('refuses bad documents and bad credentials, storing nothing; adds a good shop once', async () => {
    const unknown = await admin('/shops', {
      method: 'POST',
      body: JSON.stringify({
        id: 'loja-bad',
        name: 'x',
        platform: accountOf('loja-bad'),
        provider: { name: 'sandbox' },
        colour: 'blue',
      }),
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      error: { code: 'VALIDATION_FAILED', details: [{ field: 'colour' }] },
    });
    const malformed = await admin('/shops', { method: 'POST', body: '{"id": ' });
    expect(malformed.status).toBe(400);

    // Credentials the platform does not know: 422, naming the platform; nothing is kept.
    const rejected = await admin('/shops', {
      method: 'POST',
      body: JSON.stringify({
        id: 'loja-rejected',
        name: 'x',
        platform: accountOf('loja-rejected'),
        provider: { name: 'sandbox' },
      }),
    });
    expect(rejected.status).toBe(422);
    expect(await rejected.json()).toMatchObject({
      error: { code: 'SHOP_CREDENTIALS_REJECTED', details: [{ field: 'platform' }] },
    });
    expect((await admin('/shops/loja-rejected')).status).toBe(404);

    const added = await addShop('loja-add');
    expect(added.checkout_route.url).toBe(`${h.url}/shops/loja-add/checkout`);
    expect(added.webhook_url).toBe(`${h.url}/webhooks/sandbox/loja-add`);
    const again = await admin('/shops', {
      method: 'POST',
      body: JSON.stringify({
        id: 'loja-add',
        name: 'x',
        platform: added.platform,
        provider: { name: 'sandbox' },
      }),
    });
    expect(again.status).toBe(409);

    // Neither the listing nor the shop carries a secret.
    const listing = await (await admin('/shops')).text();
    for (const secret of [
      added.platform.password,
      added.platform.apiKey,
      added.checkout_route.token,
    ])
      expect(listing).not.toContain(secret);
    expect(listing).toContain('loja-add');
    const audit = (await (await admin('/shops/loja-add/audit')).json()) as {
      entries: Array<{ action: string; by: string }>;
    };
    expect(audit.entries).toEqual([expect.objectContaining({ action: 'added' })]);
    expect(audit.entries[0]?.by).toMatch(/^admin:[0-9a-f]{8}$/);
  });

  it('keeps shops apart: tokens, routes, platform accounts, and one service id in two shops', async () => {
    const a = await addShop('loja-a');
    const b = await addShop('loja-b');
    await h.connector.registry.refresh();
    const serviceId = 1005;

    // Each shop's token opens its own route only; an unknown shop is the same 401.
    const wrong = await checkout('/shops/loja-a/checkout', b.checkout_route.token, serviceId);
    const unknown = await checkout('/shops/loja-zz/checkout', b.checkout_route.token, serviceId);
    const envOnA = await checkout('/shops/loja-a/checkout', ROUTE_TOKEN, serviceId);
    const aOnEnv = await checkout('/checkout', a.checkout_route.token, serviceId);
    for (const refused of [wrong, unknown, envOnA, aOnEnv]) expect(refused.status).toBe(401);
    expect(((await wrong.json()) as { error: unknown }).error).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The token is not valid.',
    });
    expect(((await unknown.json()) as { error: unknown }).error).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The token is not valid.',
    });

    // The same service in the env shop and two registry shops: three checkouts, three accounts.
    const opened = await Promise.all([
      checkout('/checkout', ROUTE_TOKEN, serviceId),
      checkout('/shops/loja-a/checkout', a.checkout_route.token, serviceId),
      checkout('/shops/loja-b/checkout', b.checkout_route.token, serviceId),
    ]);
    const ids = await Promise.all(
      opened.map(async (response) => {
        expect(response.status).toBe(202);
        return ((await response.json()) as { checkout_id: string }).checkout_id;
      }),
    );
    expect(ids[1]).toMatch(/^chk_loja-a_[0-9a-f]{24}$/);
    expect(ids[2]).toMatch(/^chk_loja-b_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(3);
    const urlA = await urlSentBy(a.platform.email, serviceId);
    await urlSentBy(b.platform.email, serviceId);
    await urlSentBy(DEMO_CREDENTIALS.email, serviceId);

    // Paying shop A's checkout finishes with A's account, and settles nothing of B's.
    const pay = await fetch(`${urlA}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    await eventually(() =>
      h.simulator
        .accepted('finish-checkout')
        .find((c) => c.account === a.platform.email && c.serviceId === serviceId),
    );
    // The pay request's lines name the shop, as its jobs' do.
    expect(h.log.entries()).toContainEqual(
      expect.objectContaining({
        message: 'checkout outcome recorded',
        checkoutId: ids[1],
        shop: 'loja-a',
      }),
    );
    const stateOf = async (shop: string, id: string) =>
      (await h.connector.directory.cached(shop)?.deps.store.get(id))?.state;
    // Reported once the platform's answer to the finish is back, a moment after it took it.
    await eventually(
      async () => ((await stateOf('loja-a', ids[1] ?? '')) === 'reported' ? true : undefined),
      WAIT_DEADLINE_MS,
      "shop A's checkout reported",
    );
    expect(await stateOf('loja-b', ids[2] ?? '')).toBe('url_sent');
    // A's id is not found among B's checkouts, nor the env shop's.
    expect(
      await h.connector.directory.cached('loja-b')?.deps.store.get(ids[1] ?? ''),
    ).toBeUndefined();
    expect(await h.connector.deps.store.get(ids[1] ?? '')).toBeUndefined();
    expect(
      h.simulator
        .accepted('finish-checkout')
        .filter((c) => c.serviceId === serviceId && c.account !== a.platform.email),
    ).toEqual([]);

    // A webhook to shop B's path is B's: it cannot reach A's checkout.
    const webhook = await fetch(`${h.url}/webhooks/stripe/loja-b`, { method: 'POST', body: '{}' });
    expect(webhook.status).toBe(404);
  });

  it('keeps no secret in Redis in the clear, and never logs one', async () => {
    const shop = await addShop('loja-secret');
    await h.connector.registry.refresh();
    const opened = await checkout('/shops/loja-secret/checkout', shop.checkout_route.token, 1007);
    expect(opened.status).toBe(202);
    await urlSentBy(shop.platform.email, 1007);
    const secrets = [
      shop.platform.password,
      shop.platform.apiKey,
      shop.checkout_route.token,
      Buffer.from(`${shop.platform.email}:${shop.platform.password}`).toString('base64'),
    ];
    const redis = new Redis(h.redis.url);
    try {
      const keys = await redis.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      let values = 0;
      for (const key of keys) {
        const type = await redis.type(key);
        const dump =
          type === 'string'
            ? [await redis.get(key)]
            : type === 'hash'
              ? Object.entries(await redis.hgetall(key)).flat()
              : type === 'list'
                ? await redis.lrange(key, 0, -1)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1)
                  : type === 'set'
                    ? await redis.smembers(key)
                    : type === 'stream'
                      ? JSON.stringify(await redis.xrange(key, '-', '+'))
                      : [];
        const text = JSON.stringify(dump);
        values += 1;
        for (const secret of secrets)
          expect({ key, leaked: text.includes(secret) }).toEqual({ key, leaked: false });
      }
      expect(values).toBe(keys.length);
    } finally {
      redis.disconnect();
    }
    for (const secret of secrets) expect(h.log.text()).not.toContain(secret);
  });

  it('a disabled shop takes no new checkout and finishes what it had in flight', async () => {
    const shop = await addShop('loja-off');
    await h.connector.registry.refresh();
    const opened = await checkout('/shops/loja-off/checkout', shop.checkout_route.token, 1009);
    expect(opened.status).toBe(202);
    const url = await urlSentBy(shop.platform.email, 1009);

    expect((await admin('/shops/loja-off/disable', { method: 'POST' })).status).toBe(200);
    await h.connector.registry.refresh();
    const refused = await checkout('/shops/loja-off/checkout', shop.checkout_route.token, 1010);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'SHOP_DISABLED' } });

    // While work is open it cannot be removed.
    const busy = await admin('/shops/loja-off', { method: 'DELETE' });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: 'SHOP_HAS_OPEN_WORK' } });

    // The customer pays the checkout opened before: the finish is delivered all the same.
    expect((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    await eventually(() =>
      h.simulator
        .accepted('finish-checkout')
        .find((c) => c.account === shop.platform.email && c.serviceId === 1009),
    );
    await eventually(async () => {
      const gone = await admin('/shops/loja-off', { method: 'DELETE' });
      return gone.status === 204 ? true : undefined;
    });
    expect((await admin('/shops/loja-off')).status).toBe(404);
    // Its audit trail went with it (CONTRACT "The trust boundary of a shop").
    const audit = await admin('/shops/loja-off/audit');
    expect(audit.status).toBe(404);
    expect(await audit.json()).toMatchObject({ error: { code: 'SHOP_NOT_FOUND' } });
  });

  it('rotates a route token, the previous one still working; changes reach a second process', async () => {
    const second = await h.addConnector({});
    const shop = await addShop('loja-rot');
    // The second process was not told: it sees the new shop by polling the registry.
    // Within 5 s (CONTRACT), the second process answers 202 with this token.
    const servedBySecond = (token: string, serviceId: number, what: string) =>
      eventually(
        async () =>
          (await checkout('/shops/loja-rot/checkout', token, serviceId, second.url)).status ===
            202 || undefined,
        5000,
        what,
      );
    await servedBySecond(
      shop.checkout_route.token,
      1011,
      'the second process to serve the new shop',
    );
    const rotated = (await (
      await admin('/shops/loja-rot/rotate-token', { method: 'POST' })
    ).json()) as { checkout_route: { token: string }; previous_token_valid_until: string };
    expect(rotated.checkout_route.token).not.toBe(shop.checkout_route.token);
    expect(Date.parse(rotated.previous_token_valid_until) - Date.now()).toBeGreaterThan(
      23 * 3600_000,
    );
    await servedBySecond(
      rotated.checkout_route.token,
      1012,
      'the second process to take the new token',
    );
    expect(
      (await checkout('/shops/loja-rot/checkout', shop.checkout_route.token, 1013)).status,
    ).toBe(202);

    // A PATCH to the name is audited by field, never by value.
    const patched = await admin('/shops/loja-rot', {
      method: 'PATCH',
      body: JSON.stringify({ name: 'Loja Renomeada' }),
    });
    expect(patched.status).toBe(200);
    const audit = (await (await admin('/shops/loja-rot/audit')).json()) as {
      entries: Array<{ action: string; fields: string[] }>;
    };
    expect(audit.entries[0]).toMatchObject({ action: 'updated', fields: ['name'] });
    expect(audit.entries[1]).toMatchObject({ action: 'token-rotated' });
  });

  it('rotates the master key with `shops rekey`, and refuses to start without a key it needs', async () => {
    await addShop('loja-key');
    const cliEnv = {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      PLATFORM_BASE_URL: h.platformUrl,
      SHOP_SECRET_KEYS: `${KEY_2},${KEY_1}`,
      PUBLIC_URL: h.url,
    };
    const configOnly = (keys: string) =>
      configOf({
        NODE_ENV: 'test',
        PORT: '0',
        REDIS_URL: h.redis.url,
        QUEUE_PREFIX: h.prefix,
        PLATFORM_BASE_URL: cliEnv.PLATFORM_BASE_URL,
        SHOP_SECRET_KEYS: keys,
      });
    // Only the new key, before the rekey: the registry names k1, which this process lacks.
    await expect(
      startConnector(configOnly(KEY_2), { logger: h.log.logger, host: '127.0.0.1' }),
    ).rejects.toThrow(ConfigError);

    const rekeyed = await runCliCaptured(['shops', 'rekey'], cliEnv);
    expect(rekeyed).toMatchObject({ code: 0 });
    expect(rekeyed.stdout).toMatch(/^re-wrapped \d+ shop\(s\); 0 already used the active key/);

    // Now k1 can be retired: a process with k2 alone serves every shop.
    const fresh = await startConnector(configOnly(KEY_2), {
      logger: h.log.logger,
      host: '127.0.0.1',
      exit: () => undefined,
    });
    try {
      expect(fresh.directory.ids()).toContain('loja-key');
      expect(fresh.directory.cached('loja-key')?.settings.platform.email).toBe(
        'loja-key@shops.example.com',
      );
    } finally {
      await fresh.shutdown.run('test done');
    }
  });
});
