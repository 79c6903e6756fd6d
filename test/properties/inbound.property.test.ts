import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { closeRedis, createRedis, waitForRedis, type RedisCommands } from '../../src/infra/redis';
import { FakeAsaas } from '../support/fake-asaas';
import { FakeMercadoPago } from '../support/fake-mercadopago';
import { FakeStripe } from '../support/fake-stripe';
import { ROUTE_TOKEN } from '../support/harness';
import {
  hostileBody,
  hostileContentType,
  hostileEncoding,
  hostileId,
  hostileMethod,
  isCustomerPage,
  rssMb,
  send,
  stateDigest,
  type Answer,
  type InboundRequest,
} from '../support/inbound-requests';
import { redisAndSimulator } from '../support/platform';
import { connectorStarted, spawnConnector, type Spawned } from '../support/spawn-ts';

/**
 * Properties of every inbound endpoint, against connector processes (one per provider), with
 * random and hostile requests: never a 5xx, the CONTRACT error shape on every error, no change
 * in Redis without credentials, the process up with bounded memory.
 *
 * `npm test` runs a fixed seed and a bounded count; `npm run test:properties` a longer run with a
 * fresh seed (PROPERTY_RUNS, PROPERTY_SEED to repeat one). fast-check prints the seed and the
 * shrunk request of any failure.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);
const SEED =
  process.env.PROPERTY_SEED === 'random'
    ? Date.now() ^ (Math.random() * 0x100000000)
    : Number(process.env.PROPERTY_SEED ?? 20261123);
const DASHBOARD = { user: 'ops', password: 'property-dashboard-pw' };
/** The sandbox connector's admin API (CONTRACT "Shops"), with a shop of its registry. */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const SHOP = {
  id: 'prop-shop',
  platform: {
    email: 'prop-shop@shops.example.com',
    password: `pw-${randomBytes(6).toString('hex')}`,
    apiKey: `key-${randomBytes(6).toString('hex')}`,
  },
};
/**
 * A body larger than this may be cut by a reset when the server refuses the request before
 * reading it (over a limit, or a type it does not read): Node takes in what one read of the
 * socket holds with the headers, and closes on the rest. Smaller ones are always answered.
 */
const LARGE_BODY_BYTES = 16 * 1024;

interface Target {
  name: 'sandbox' | 'stripe' | 'mercadopago' | 'asaas';
  proc: Spawned;
  url: string;
  prefix: string;
}

jest.setTimeout(240_000);

describe(`every inbound endpoint, under random and hostile requests (seed ${SEED}, ${RUNS} runs)`, () => {
  const shared = redisAndSimulator();
  const stripe = new FakeStripe();
  const mercadopago = new FakeMercadoPago();
  const asaas = new FakeAsaas();
  const targets: Target[] = [];
  const spawned: Spawned[] = [];
  let redis: RedisCommands;

  beforeAll(async () => {
    await Promise.all([stripe.start(), mercadopago.start(), asaas.start()]);
    const providers = [
      [
        'sandbox',
        {
          DASHBOARD_USER: DASHBOARD.user,
          DASHBOARD_PASSWORD: DASHBOARD.password,
          ADMIN_TOKEN,
          SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        },
      ],
      ['stripe', stripe.env()],
      ['mercadopago', mercadopago.env()],
      ['asaas', asaas.env()],
    ] as const;
    await Promise.all(
      providers.map(async ([name, env]) => {
        const prefix = `prop-${name}-${process.pid}`;
        const proc = spawnConnector(shared.redis.url, shared.simulator.url, {
          ...env,
          // No workers: nothing but the requests writes to Redis.
          ROLE: 'api',
          QUEUE_PREFIX: prefix,
          // Limits off, so every request reaches its handler (they have tests of their own).
          RATE_LIMIT_CHECKOUT_FAILURES: '0',
          RATE_LIMIT_WEBHOOK_FAILURES: '0',
          RATE_LIMIT_PAGES: '0',
          RATE_LIMIT_DASHBOARD_FAILURES: '0',
        });
        spawned.push(proc);
        const { port } = await connectorStarted(proc, 30_000);
        targets.push({ name, proc, url: `http://127.0.0.1:${port}`, prefix });
      }),
    );
    redis = createRedis(shared.redis.url, 'producer', 'property-observer');
    expect(await waitForRedis(redis, 5000)).toBe(true);
    // A shop in the sandbox connector's registry, so the admin API's verbs have one to act on.
    shared.simulator.state.addAccount(SHOP.platform);
    const added = await fetch(`${target('sandbox').url}/admin/api/shops`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...SHOP, name: 'Loja', provider: { name: 'sandbox' } }),
    });
    expect(added.status).toBe(201);
  });

  afterAll(async () => {
    for (const proc of spawned) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    if (redis) await closeRedis(redis);
    await Promise.all([stripe.stop(), mercadopago.stop(), asaas.stop()]);
  });

  const target = (name: Target['name']) => {
    const found = targets.find((t) => t.name === name);
    if (!found) throw new Error(`no ${name} connector`);
    return found;
  };

  /** The admin API's routes (CONTRACT "Shops"), other spellings of them, and unknown shops. */
  const hostileAdminPath = fc.oneof(
    fc.constantFrom(
      '/admin/api/shops',
      '/admin/api/shops/',
      '/admin/api',
      '/ADMIN/API/SHOPS',
      `/admin/api/shops/${SHOP.id}/`,
      `/Admin/api/shops/${SHOP.id}`,
    ),
    fc
      .tuple(
        fc.oneof(fc.constant(SHOP.id), fc.constant('default'), hostileId),
        fc.constantFrom(
          '',
          '/disable',
          '/enable',
          '/rotate-token',
          '/verify',
          '/audit',
          '/DISABLE',
        ),
      )
      .map(([id, verb]) => `/admin/api/shops/${id}${verb}`),
  );

  /** Where a request may go, for a given connector: every route it has, and some it has not. */
  const hostilePath = (provider: Target['name']) =>
    fc.oneof(
      fc.constant('/checkout'),
      fc
        .tuple(
          fc.constantFrom('/checkout?service_id=', '/checkout?token=wrong&service_id='),
          hostileId,
        )
        .map(([p, id]) => p + id),
      fc.constant(`/webhooks/${provider}`),
      fc
        .tuple(
          fc.constantFrom(`/webhooks/${provider}?`, `/webhooks/${provider}?type=payment&data.id=`),
          hostileId,
        )
        .map(([p, id]) => p + id),
      hostileId.map((id) => `/webhooks/${id}`),
      fc
        .tuple(
          fc.constantFrom('sandbox', 'stripe', 'mercadopago', 'asaas'),
          hostileId,
          fc.boolean(),
        )
        .map(
          ([p, id, cancelled]) =>
            `/return/${p}?checkout_id=${id}${cancelled ? '&cancelled=1' : ''}`,
        ),
      hostileId.map((id) => `/sandbox/checkout/${id}`),
      fc
        .tuple(
          hostileId,
          fc.constantFrom('pay', 'pix', 'boleto', 'decline', 'refund', 'chargeback', 'late-pay'),
        )
        .map(([id, action]) => `/sandbox/checkout/${id}/${action}`),
      fc.constantFrom(
        '/admin/queues',
        '/admin/queues/api/queues',
        '/admin/queues/api/queues/notifications/add',
        '/admin/queues/api/queues/notifications/retry/failed',
        '/admin/queues/api/queues/notifications/clean/completed',
        '/admin/queues/api/queues/notifications/finish-x/update-data',
        '/admin/queues/api/queues/notifications/obliterate',
        '/healthz',
        '/readyz',
        '/metrics',
      ),
      hostileAdminPath,
      hostileId.map((id) => `/${id}`),
    );

  /** Credentials that are absent, wrong, or (the dashboard's) right but sent cross-site. */
  const hostileAuth = fc.constantFrom<Record<string, string>>(
    {},
    { authorization: 'Bearer wrong-token' },
    { 'x-api-key': 'wrong-token' },
    { authorization: 'Basic b3BzOndyb25n' },
    { authorization: 'Bearer ' },
    {
      authorization: `Basic ${Buffer.from(`${DASHBOARD.user}:${DASHBOARD.password}`).toString('base64')}`,
      origin: 'https://evil.example',
    },
    { 'stripe-signature': 't=1,v1=deadbeef' },
    { 'x-signature': 'ts=1,v1=deadbeef', 'x-request-id': 'abc' },
    { 'asaas-access-token': 'not-the-webhook-token-0123456789abcdef' },
    // The admin token's neighbours: one character off, another case, in another header.
    { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` },
    { authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` },
    { 'x-api-key': ADMIN_TOKEN },
    { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
  );

  const hostileRequest = (provider: Target['name'], auth: fc.Arbitrary<Record<string, string>>) =>
    fc
      .record({
        method: hostileMethod,
        path: hostilePath(provider),
        auth,
        type: hostileContentType,
        encoding: hostileEncoding,
        body: hostileBody,
      })
      .map(({ method, path, auth: credentials, type, encoding, body }): InboundRequest => ({
        method,
        path,
        headers: {
          ...credentials,
          ...(type ? { 'content-type': type } : {}),
          ...(encoding ? { 'content-encoding': encoding } : {}),
        },
        body: method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : body,
      }));

  /**
   * How a reset reaches the client: the connection reset or the pipe broken under the write, or
   * the answer cut short. Anything else (a refused connection: the process is gone) is no answer.
   */
  const RESET_CODES = ['ECONNRESET', 'EPIPE', 'cut'];

  /**
   * Whether the server may close the connection on `req` before its answer is read: only on a
   * body over LARGE_BODY_BYTES, one it refused before reading it (over the route's limit, or sent
   * without the right credentials). A smaller body comes in whole with its headers, and gets an
   * answer, with or without credentials.
   */
  const mayBeReset = (req: InboundRequest, reset: string): boolean =>
    RESET_CODES.includes(reset) && req.body.length > LARGE_BODY_BYTES;

  /**
   * Answered, or reset where `mayBeReset` allows it (the process is checked after every run);
   * never a 5xx; an error is the CONTRACT's JSON shape (a customer page may be an HTML 404).
   */
  function expectWellAnswered(req: InboundRequest, answer: Answer): void {
    if (answer.reset) {
      // The request that was reset, by its kind: a reset of any other fails here, by name.
      const { method, path, headers } = req;
      expect({
        reset: answer.reset,
        method,
        path,
        headers: Object.keys(headers),
        bodyBytes: req.body.length,
        mayBeReset: mayBeReset(req, answer.reset),
      }).toMatchObject({ mayBeReset: true });
      return;
    }
    expect(answer.status).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(500);
    if (
      answer.status < 400 ||
      req.method === 'HEAD' ||
      (answer.status === 405 && req.method === 'OPTIONS')
    )
      return;
    if (answer.type.startsWith('text/html')) {
      expect(isCustomerPage(req.path)).toBe(true);
      expect(answer.status).toBe(404);
      return;
    }
    expect(answer.type).toContain('application/json');
    const body = JSON.parse(answer.body) as { error?: Record<string, unknown> };
    expect(body.error).toMatchObject({
      code: expect.stringMatching(/^[A-Z_]+$/),
      message: expect.any(String),
      request_id: expect.any(String),
    });
  }

  async function expectUp(t: Target, rssAtStart: number): Promise<void> {
    expect(t.proc.child.exitCode).toBeNull();
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect(rssMb(Number(t.proc.child.pid)) - rssAtStart).toBeLessThan(150);
  }

  it.each(['sandbox', 'stripe', 'mercadopago', 'asaas'] as const)(
    '%s: unauthenticated requests, alone and concurrent, never a 5xx and never a change in Redis',
    async (name) => {
      const t = target(name);
      const rssAtStart = rssMb(Number(t.proc.child.pid));
      const before = await stateDigest(redis, t.prefix);
      await fc.assert(
        fc.asyncProperty(
          fc.array(hostileRequest(name, hostileAuth), { minLength: 1, maxLength: 4 }),
          async (requests) => {
            const answers = await Promise.all(requests.map((req) => send(t.url, req)));
            requests.forEach((req, i) => expectWellAnswered(req, answers[i] as Answer));
            expect(await stateDigest(redis, t.prefix)).toBe(before);
          },
        ),
        { seed: SEED, numRuns: RUNS },
      );
      await expectUp(t, rssAtStart);
    },
  );

  it('with the right token, any body on the checkout route is a 202 or a clear 4xx, never a 5xx', async () => {
    const t = target('sandbox');
    const rssAtStart = rssMb(Number(t.proc.child.pid));
    const withToken = fc.constantFrom<Record<string, string>>(
      { authorization: `Bearer ${ROUTE_TOKEN}` },
      { 'x-api-key': ROUTE_TOKEN },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          hostileRequest('sandbox', withToken).map((req) => ({
            ...req,
            method: 'POST',
            path: req.path.startsWith('/checkout') ? req.path : '/checkout',
          })),
          { minLength: 1, maxLength: 4 },
        ),
        async (requests) => {
          const answers = await Promise.all(requests.map((req) => send(t.url, req)));
          requests.forEach((req, i) => {
            const answer = answers[i] as Answer;
            // `?token=wrong` in the query does not undo the right token of a header.
            expectWellAnswered(req, answer);
            if (!answer.reset) expect([202, 400, 401, 409, 413, 415]).toContain(answer.status);
          });
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    await expectUp(t, rssAtStart);
  });

  /** Shop documents as a vendor's buggy or hostile system might send them (never an `apiUrl`). */
  const hostileShopDocument = fc
    .record(
      {
        id: fc.oneof(fc.constantFrom(SHOP.id, 'prop-new', 'default'), fc.string({ maxLength: 70 })),
        name: fc.oneof(fc.string({ maxLength: 120 }), fc.jsonValue({ maxDepth: 2 })),
        platform: fc.oneof(
          fc.constant(SHOP.platform),
          fc.record({ email: fc.string(), password: fc.string(), apiKey: fc.string() }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        provider: fc.oneof(
          fc.record({ name: fc.constantFrom('sandbox', 'nope', '') }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        enabled: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    )
    .map((document) => Buffer.from(JSON.stringify(document)));

  it('with the right admin token, any request to the admin API is JSON, never a 5xx', async () => {
    const t = target('sandbox');
    const rssAtStart = rssMb(Number(t.proc.child.pid));
    const request = fc
      .record({
        method: hostileMethod,
        path: hostileAdminPath,
        type: fc.oneof(fc.constant('application/json'), hostileContentType),
        encoding: hostileEncoding,
        body: fc.oneof(hostileShopDocument, hostileBody),
      })
      .map(({ method, path, type, encoding, body }): InboundRequest => ({
        method,
        path,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(type ? { 'content-type': type } : {}),
          ...(encoding ? { 'content-encoding': encoding } : {}),
        },
        body: method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : body,
      }));
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (requests) => {
        const answers = await Promise.all(requests.map((req) => send(t.url, req)));
        requests.forEach((req, i) => {
          const answer = answers[i] as Answer;
          expectWellAnswered(req, answer);
          if (answer.reset) return;
          statuses.add(answer.status);
          // A success has a JSON body too, but for 204 (DELETE) and what HEAD and OPTIONS get.
          const bodiless = answer.status === 204 || req.method === 'HEAD';
          if (!bodiless) expect(answer.type).toContain('application/json');
        });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The token opened the API: the runs reached its verbs, not only its refusals.
    expect([...statuses].some((status) => status < 300)).toBe(true);
    await expectUp(t, rssAtStart);
  });

  it('answers the same request repeated a hundred times at once, and stays up', async () => {
    const t = target('stripe');
    const req: InboundRequest = {
      method: 'POST',
      path: '/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      body: Buffer.from('{"id":"evt_1","type":"checkout.session.completed"}'),
    };
    const before = await stateDigest(redis, t.prefix);
    const answers = await Promise.all(Array.from({ length: 100 }, () => send(t.url, req)));
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { code: 'WEBHOOK_SIGNATURE_INVALID' },
      });
    }
    expect(await stateDigest(redis, t.prefix)).toBe(before);
  });
});
