import { randomBytes } from 'node:crypto';
import { closeRedis, createRedis, type RedisCommands } from '../../../src/redis/redis';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { ROUTE_TOKEN, startHarness, type Harness } from '../../support/harness';
import { send } from '../../support/inbound-requests';
import { adminApi, dataScopeOf } from '../../support/registry-shop';

/*
 * Paths are exact (CONTRACT "The trust boundary of a shop"): routing is case-sensitive and
 * strict, on Express's routes, the front door's and the dashboard's alike. A path that differs
 * from a route by its case or a trailing slash is the JSON 404 of any unknown path, whatever
 * credentials it carries; the paths that worked before still do.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const DASHBOARD = { user: 'ops', password: 'exact-paths-dashboard-pw' };
const basic = `Basic ${Buffer.from(`${DASHBOARD.user}:${DASHBOARD.password}`).toString('base64')}`;

describe('paths are exact: case-sensitive and strict routing', () => {
  let h: Harness;
  let shopRoute: { url: string; token: string };
  let redis: RedisCommands;
  beforeAll(async () => {
    h = await startHarness({
      env: {
        ADMIN_TOKEN,
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        DASHBOARD_USER: DASHBOARD.user,
        DASHBOARD_PASSWORD: DASHBOARD.password,
      },
    });
    const platform = {
      email: 'exact@shops.example.com',
      password: 'pw-exact',
      apiKey: 'key-exact',
    };
    h.simulator.state.addAccount(platform);
    const added = await adminApi(h, ADMIN_TOKEN)('/shops', {
      method: 'POST',
      body: JSON.stringify({
        id: 'loja-x',
        name: 'Loja X',
        platform,
        provider: { name: 'sandbox' },
      }),
    });
    expect(added.status).toBe(201);
    shopRoute = ((await added.json()) as { checkout_route: { url: string; token: string } })
      .checkout_route;
    await h.connector.registry.refresh();
    redis = createRedis(h.redis.url, 'producer', 'exact-paths-test');
  });
  afterAll(async () => {
    await closeRedis(redis);
    await h.stop();
  });

  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const route = { authorization: `Bearer ${ROUTE_TOKEN}`, 'content-type': 'application/json' };
  const shop = () => ({
    authorization: `Bearer ${shopRoute.token}`,
    'content-type': 'application/json',
  });
  const dashboard = { authorization: basic };

  /** A request with the right credentials for the route it resembles, as written on the wire. */
  const ask = (method: string, path: string, headers: Record<string, string>, body = '') =>
    send(h.url, { method, path, headers, body: Buffer.from(body) });

  it.each<[string, string, () => Record<string, string>, string]>([
    ['GET', '/ADMIN/API/SHOPS', () => admin, ''],
    ['GET', '/Admin/api/shops', () => admin, ''],
    ['GET', '/admin/API/shops', () => admin, ''],
    ['GET', '/admin/api/Shops', () => admin, ''],
    ['POST', '/admin/api/shops/loja-x/DISABLE', () => admin, ''],
    ['GET', '/admin/api/shops/', () => admin, ''],
    ['GET', '/admin/api/shops/loja-x/', () => admin, ''],
    ['POST', '/Shops/loja-x/checkout', shop, '{"service_id": 1001}'],
    ['POST', '/shops/loja-x/CHECKOUT', shop, '{"service_id": 1001}'],
    ['POST', '/shops/loja-x/checkout/', shop, '{"service_id": 1001}'],
    // The front door's own match: JSON of declared length, the right token, no query.
    ['POST', '/CHECKOUT', () => route, '{"service_id": 1001}'],
    ['POST', '/Checkout', () => route, '{"service_id": 1001}'],
    ['POST', '/checkout/', () => route, '{"service_id": 1001}'],
    ['GET', '/HEALTHZ', () => ({}), ''],
    ['GET', '/healthz/', () => ({}), ''],
    ['GET', '/Metrics', () => ({}), ''],
    ['POST', '/Webhooks/sandbox', () => ({ 'content-type': 'application/json' }), '{}'],
    ['GET', '/Return/sandbox?checkout_id=chk_000000000000000000000000', () => ({}), ''],
    ['GET', '/ADMIN/queues', () => dashboard, ''],
    ['GET', '/admin/Queues/api/queues', () => dashboard, ''],
    ['GET', '/admin/queues/API/queues', () => dashboard, ''],
    ['GET', '/admin/queues/api/queues/', () => dashboard, ''],
  ])('answers %s %s with the JSON 404', async (method, path, headers, body) => {
    const answer = await ask(method, path, headers(), body);
    expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    expect(answer.type).toContain('application/json');
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    // Nothing was done through it: the shop is still enabled, no checkout of 1001 was stored
    // (one is, before its 202; the test that opens checkouts asks for 1002).
    const shown = await adminApi(h, ADMIN_TOKEN)('/shops/loja-x');
    expect(await shown.json()).toMatchObject({ id: 'loja-x', enabled: true });
    for (const scope of ['default', await dataScopeOf(h, 'loja-x')]) {
      expect(await redis.exists(checkoutKeys(h.prefix, scope).service(1001))).toBe(0);
    }
  });

  it.each<[number, string, string, () => Record<string, string>]>([
    [200, 'GET', '/admin/api/shops', () => admin],
    [200, 'GET', '/admin/api/shops/loja-x', () => admin],
    [200, 'GET', '/admin/api/shops/loja-x/audit', () => admin],
    [200, 'GET', '/healthz', () => ({})],
    [200, 'GET', '/admin/queues', () => dashboard],
    [200, 'GET', '/admin/queues/', () => dashboard],
    [200, 'GET', '/admin/queues/api/queues', () => dashboard],
    [404, 'GET', '/return/sandbox?checkout_id=chk_000000000000000000000000', () => ({})],
    [405, 'GET', '/checkout', () => route],
  ])('still answers %i to %s %s, as before', async (status, method, path, headers) => {
    expect((await ask(method, path, headers())).status).toBe(status);
  });

  it('still takes a checkout on both routes, through the front door and Express', async () => {
    const shopPath = new URL(shopRoute.url).pathname;
    for (const [path, headers] of [
      ['/checkout', route],
      ['/checkout?', route],
      [shopPath, shop()],
      [`${shopPath}?`, shop()],
    ] as const) {
      const answer = await ask('POST', path, headers, '{"service_id": 1002}');
      expect({ path, status: answer.status }).toEqual({ path, status: 202 });
    }
  });
});
