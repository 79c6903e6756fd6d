import fc from 'fast-check';
import { PROVIDER_NAMES } from '../../src/payments/providers';
import { connectKeys } from '../../src/redis/keyspace';
import { closeRedis, createRedis, waitForRedis, type RedisCommands } from '../../src/redis/redis';
import { ROUTE_TOKEN } from '../support/harness';
import { hostileAdminPath, hostileRequest } from '../support/inbound-paths';
import {
  changedKeys,
  hostileBody,
  hostileContentType,
  hostileEncoding,
  hostileMethod,
  isPagePath,
  isPageRoute,
  readable,
  rssMb,
  send,
  stateDigest,
  stateSnapshot,
  type Answer,
  type InboundRequest,
} from '../support/inbound-requests';
import { redisAndSimulator } from '../support/platform';
import { providerEndpointPath, type InboundWorld } from '../support/provider-endpoint-paths';
import { TEST_PROVIDER_LIST } from '../support/providers';
import {
  ADMIN_TOKEN,
  CONNECTOR_NAMES,
  type ConnectorName,
  DASHBOARD,
  PropertyConnectors,
  REGISTRY_CONNECTOR,
  SHOP_ID,
  SHOP_PLATFORM,
  type Target,
} from '../support/property-connectors';

/**
 * Properties of every inbound endpoint, against connector processes (one per provider of the
 * test registry, the sandbox one with a registry: a shop on every provider and live connect
 * links; see property-connectors.ts), with random and hostile
 * requests: never a 5xx, the CONTRACT error shape on every error of the API, pages as HTML, no
 * change in Redis without credentials (but for the connection a live link's button starts), no
 * shop's document changed, no link token in a log line, the process up with bounded memory.
 *
 * `npm test` runs a fixed seed and a bounded count (30 runs a property: the file takes what it
 * took with 60 before the registry, its fake PSP and the provider endpoints' property came);
 * `npm run test:properties` a longer run with a fresh seed (PROPERTY_RUNS, PROPERTY_SEED to
 * repeat one). fast-check prints the seed and the shrunk request of any failure.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 30);
const SEED =
  process.env.PROPERTY_SEED === 'random'
    ? Date.now() ^ (Math.random() * 0x100000000)
    : Number(process.env.PROPERTY_SEED ?? 20261123);
/**
 * The runs, and a bound on a failure's shrinking (each step sends requests to a process): it
 * stops there, well within jest's timeout, and fast-check reports the smallest failure found.
 */
const PROPERTY_OPTIONS = { seed: SEED, numRuns: RUNS, skipAllAfterTimeLimit: 100_000 };
/**
 * A body larger than this may be cut by a reset when the server refuses the request before
 * reading it (over a limit, or a type it does not read): Node takes in what one read of the
 * socket holds with the headers, and closes on the rest. Smaller ones are always answered.
 */
const LARGE_BODY_BYTES = 16 * 1024;

jest.setTimeout(240_000);

describe(`every inbound endpoint, under random and hostile requests (seed ${SEED}, ${RUNS} runs)`, () => {
  const shared = redisAndSimulator();
  const connectors = new PropertyConnectors();
  let redis: RedisCommands;

  beforeAll(async () => {
    await connectors.start(shared.redis.url, shared.simulator);
    redis = createRedis(shared.redis.url, 'producer', 'property-observer');
    expect(await waitForRedis(redis, 5000)).toBe(true);
  });

  afterAll(async () => {
    await connectors.stop();
    if (redis) await closeRedis(redis);
  });

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
    // Each provider's own credentials (its signature's header), never the right ones.
    ...TEST_PROVIDER_LIST.flatMap((row) => row.inbound.forgedAuth),
    // The admin token's neighbours: one character off, another case, in another header.
    { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` },
    { authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` },
    { 'x-api-key': ADMIN_TOKEN },
    { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
    // A connect cookie of the right form, never the browser's that started a connection.
    { cookie: 'connector-connect=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
  );

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
   * never a 5xx; an error is the CONTRACT's JSON shape, or an HTML page on a page's path; a page
   * GET is answered with a page.
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
    if (req.method === 'GET' && isPageRoute(req.path) && !unreadablePath(answer)) {
      expect({ path: req.path, status: answer.status, type: answer.type }).toMatchObject({
        type: expect.stringMatching(/^text\/html/),
      });
    }
    if (
      answer.status < 400 ||
      req.method === 'HEAD' ||
      (answer.status === 405 && req.method === 'OPTIONS')
    )
      return;
    if (answer.type.startsWith('text/html')) {
      expect({ path: req.path, pagePath: isPagePath(req.path) }).toMatchObject({ pagePath: true });
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

  /**
   * A path whose escapes do not decode (`/connect/%ZZ`) is refused by the router before any page
   * is chosen: the JSON 400 of every path, pages' too. Let through, and reported: the CONTRACT
   * asks pages to answer their errors as pages.
   */
  function unreadablePath(answer: Answer): boolean {
    if (answer.status !== 400 || !answer.type.startsWith('application/json')) return false;
    const { error } = JSON.parse(answer.body) as { error?: { code?: string; message?: string } };
    return error?.code === 'VALIDATION_FAILED' && error.message === 'The path could not be read.';
  }

  async function expectUp(t: Target, rssAtStart: number): Promise<void> {
    expect(t.proc.child.exitCode).toBeNull();
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect(rssMb(Number(t.proc.child.pid)) - rssAtStart).toBeLessThan(150);
  }

  /**
   * The keys of the connections under way (states, and the accounts a Stripe onboarding made):
   * what the button of a live link writes, rightly, for whoever holds the link.
   */
  const underWay = (prefix: string) => {
    const { tag } = connectKeys(prefix);
    const kinds = [':state:', ':link-account:', ':account:'].map((kind) => tag + kind);
    return (key: string) => kinds.some((kind) => key.startsWith(kind));
  };

  /** Whether `req` presses the button of a live link (its token as sent, or escaped). */
  const startsConnection = (req: InboundRequest): boolean => {
    const token = /^\/connect\/([^/?]+)\/start$/.exec(req.path)?.[1];
    if (req.method !== 'POST' || token === undefined) return false;
    try {
      return connectors.linkTokens.includes(decodeURIComponent(token));
    } catch {
      return false;
    }
  };

  /** What a process has written to its log so far (stdout and stderr). */
  const logOf = (t: Target) => `${t.proc.stdout()}\n${t.proc.stderr()}`;

  /**
   * Sends batches of unauthenticated requests (to `paths`, or anywhere) to one connector: each
   * well answered; nothing written to Redis but the connections a live link's button starts; the
   * registry's shops as they were; no live link's token in the log; the process up.
   */
  async function attackWithoutCredentials(
    name: ConnectorName,
    paths?: (world: InboundWorld) => fc.Arbitrary<string>,
  ): Promise<void> {
    const t = connectors.target(name);
    const world = connectors.world(name);
    const rssAtStart = rssMb(Number(t.proc.child.pid));
    const isUnderWay = underWay(t.prefix);
    const settled = (key: string) => !isUnderWay(key);
    // Each run is held to the state the previous one left, so that a failure names the batch
    // that wrote (and its keys), not a later one.
    let previous = await stateSnapshot(redis, t.prefix);
    const documents = await connectors.shopDocuments();
    const logFrom = logOf(t).length;
    let logAt = logFrom;
    const request = hostileRequest(world, hostileAuth, paths?.(world));
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (requests) => {
        const answers = await Promise.all(requests.map((req) => send(t.url, req)));
        requests.forEach((req, i) => expectWellAnswered(req, answers[i] as Answer));
        // The registry's documents are among the keys (`{prefix:registry}`): read at each run
        // there, through the admin API once the runs are done.
        const now = await stateSnapshot(redis, t.prefix);
        const keep = requests.some(startsConnection) ? settled : undefined;
        const changed = changedKeys(previous, now, keep);
        const logged = logOf(t).slice(logAt);
        // What this run did is judged now, but the next run (or a shrunk one) starts from here.
        [previous, logAt] = [now, logAt + logged.length];
        expect(changed).toEqual([]);
        for (const token of connectors.linkTokens) expect(logged).not.toContain(token);
      }),
      PROPERTY_OPTIONS,
    );
    expect(await connectors.shopDocuments()).toBe(documents);
    const logged = logOf(t).slice(logFrom);
    for (const token of connectors.linkTokens) expect(logged).not.toContain(token);
    await expectUp(t, rssAtStart);
  }

  it.each(CONNECTOR_NAMES)(
    '%s: unauthenticated requests, alone and concurrent: never a 5xx, no change in Redis or to a shop, no link token logged',
    (name) => attackWithoutCredentials(name),
  );

  it("Connect's and the providers' own endpoints, with live links and a shop on every provider: the same, more often", () =>
    attackWithoutCredentials(REGISTRY_CONNECTOR, providerEndpointPath));

  it('with the right token, any body on the checkout route is a 202 or a clear 4xx, never a 5xx', async () => {
    const t = connectors.target(REGISTRY_CONNECTOR);
    const rssAtStart = rssMb(Number(t.proc.child.pid));
    const withToken = fc.constantFrom<Record<string, string>>(
      { authorization: `Bearer ${ROUTE_TOKEN}` },
      { 'x-api-key': ROUTE_TOKEN },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          hostileRequest(connectors.world(REGISTRY_CONNECTOR), withToken).map((req) =>
            readable({
              ...req,
              method: 'POST',
              path: req.path.startsWith('/checkout') ? req.path : '/checkout',
            }),
          ),
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
      PROPERTY_OPTIONS,
    );
    await expectUp(t, rssAtStart);
  });

  /** Shop documents as a vendor's buggy or hostile system might send them (never an `apiUrl`). */
  const hostileShopDocument = fc
    .record(
      {
        id: fc.oneof(fc.constantFrom(SHOP_ID, 'prop-new', 'default'), fc.string({ maxLength: 70 })),
        name: fc.oneof(fc.string({ maxLength: 120 }), fc.jsonValue({ maxDepth: 2 })),
        platform: fc.oneof(
          fc.constant(SHOP_PLATFORM),
          fc.record({ email: fc.string(), password: fc.string(), apiKey: fc.string() }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        provider: fc.oneof(
          fc.record({ name: fc.constantFrom(...PROVIDER_NAMES, 'nope', '') }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        enabled: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    )
    .map((document) => Buffer.from(JSON.stringify(document)));

  /** The body of `.../connect`: a provider to link, known or not (never an Asaas `account`). */
  const connectRequest = fc
    .record({ provider: fc.constantFrom(...PROVIDER_NAMES, '') })
    .map((body) => Buffer.from(JSON.stringify(body)));

  it('with the right admin token, any request to the admin API is JSON, never a 5xx', async () => {
    const t = connectors.target(REGISTRY_CONNECTOR);
    const rssAtStart = rssMb(Number(t.proc.child.pid));
    const request = fc
      .record({
        method: hostileMethod,
        path: hostileAdminPath(SHOP_ID),
        type: fc.oneof(fc.constant('application/json'), hostileContentType),
        encoding: hostileEncoding,
        body: fc.oneof(hostileShopDocument, connectRequest, hostileBody),
      })
      .map(({ method, path, type, encoding, body }) =>
        readable({
          method,
          path,
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            ...(type ? { 'content-type': type } : {}),
            ...(encoding ? { 'content-encoding': encoding } : {}),
          },
          body: method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : body,
        }),
      );
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
      PROPERTY_OPTIONS,
    );
    // The token opened the API: the runs reached its verbs, not only its refusals.
    expect([...statuses].some((status) => status < 300)).toBe(true);
    await expectUp(t, rssAtStart);
  });

  it('answers the same request repeated a hundred times at once, and stays up', async () => {
    const t = connectors.target('stripe');
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
