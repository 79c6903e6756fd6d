import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { newCheckoutId } from '../../../src/checkout/checkout-record';
import {
  closeRedis,
  createRedis,
  scanPrimaries,
  type RedisCommands,
} from '../../../src/redis/redis';
import { shopTag } from '../../../src/redis/keyspace';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { runCliCaptured } from '../../support/cli';
import { eventually, ROUTE_TOKEN, startHarness, type Harness } from '../../support/harness';
import { send, type InboundRequest } from '../../support/inbound-requests';
import { adminApi, dataScopeOf } from '../../support/registry-shop';

/*
 * One range for `service_id` (CONTRACT "The trust boundary of a shop"): whatever the route
 * accepts, the store can hold; a larger id is 400 INVALID_SERVICE_ID on both HTTP paths (the
 * front door and Express) and stores nothing; a record an older bug left unreadable is parked by
 * the reconciler, shown by `checkout status`, and never blocks the removal of its shop.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const SIXTEEN_DIGITS = '1234567890123456';

describe('one range for service_id, from the route to the store', () => {
  let h: Harness;
  let redis: RedisCommands;
  beforeAll(async () => {
    h = await startHarness({
      env: {
        ADMIN_TOKEN,
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        RECONCILE_INTERVAL_MS: '200',
      },
    });
    redis = createRedis(h.redis.url, 'producer', 'service-id-test');
    // Commands are not queued while it connects: a test that writes first would fail.
    if (redis.status !== 'ready') await once(redis, 'ready');
  });
  afterAll(async () => {
    await closeRedis(redis);
    await h.stop();
  });

  /** Every checkout key of a shop (its record, service pointers, lines). */
  const checkoutKeysOf = async (shop: string): Promise<string[]> => {
    const found: string[] = [];
    const scope = shop === 'default' ? shop : await dataScopeOf(h, shop);
    for await (const batch of scanPrimaries(redis, `${shopTag(h.prefix, scope)}:chk*`)) {
      found.push(...batch);
    }
    return found.sort();
  };

  /** Adds a sandbox shop through the admin API; answers its route. */
  const addShop = async (id: string): Promise<{ url: string; token: string }> => {
    const platform = {
      email: `${id}@shops.example.com`,
      password: `pw-${randomBytes(6).toString('hex')}`,
      apiKey: `key-${randomBytes(6).toString('hex')}`,
    };
    h.simulator.state.addAccount(platform);
    const added = await adminApi(h, ADMIN_TOKEN)('/shops', {
      method: 'POST',
      body: JSON.stringify({ id, name: `Loja ${id}`, platform, provider: { name: 'sandbox' } }),
    });
    expect(added.status).toBe(201);
    await h.connector.registry.refresh();
    return ((await added.json()) as { checkout_route: { url: string; token: string } })
      .checkout_route;
  };

  const json = (path: string, token: string, body: string): InboundRequest => ({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: Buffer.from(body),
  });
  const form = (path: string, token: string, body: string): InboundRequest => ({
    method: 'POST',
    path,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Bearer ${token}`,
    },
    body: Buffer.from(body),
  });

  it('answers a 16-digit service_id with 400 INVALID_SERVICE_ID on every path, storing nothing', async () => {
    const route = await addShop('loja-range');
    const shopPath = new URL(route.url).pathname;
    const before = {
      env: await checkoutKeysOf('default'),
      shop: await checkoutKeysOf('loja-range'),
    };
    const requests: Array<[string, InboundRequest]> = [];
    for (const [path, token] of [
      ['/checkout', ROUTE_TOKEN],
      [shopPath, route.token],
    ] as const) {
      requests.push(
        // The front door: JSON of declared length, no query.
        [`front door, number, ${path}`, json(path, token, `{"service_id": ${SIXTEEN_DIGITS}}`)],
        [`front door, string, ${path}`, json(path, token, `{"service_id": "${SIXTEEN_DIGITS}"}`)],
        // Express: the same JSON behind an empty query (the door takes no query), a form, the query.
        [`express, JSON, ${path}`, json(`${path}?`, token, `{"service_id": ${SIXTEEN_DIGITS}}`)],
        [`express, form, ${path}`, form(path, token, `service_id=${SIXTEEN_DIGITS}`)],
        [`express, query, ${path}`, form(`${path}?service_id=${SIXTEEN_DIGITS}`, token, '')],
        [`express, larger than 2^53, ${path}`, form(path, token, `service_id=${'9'.repeat(20)}`)],
      );
    }
    const errors = () => h.log.entries().filter((e) => e.level === 'error' && e.path !== undefined);
    for (const [what, request] of requests) {
      const answer = await send(h.url, request);
      expect({ what, status: answer.status }).toEqual({ what, status: 400 });
      expect(JSON.parse(answer.body)).toMatchObject({
        error: {
          code: 'INVALID_SERVICE_ID',
          details: [{ field: 'service_id', problem: expect.stringContaining('15 digits') }],
        },
      });
    }
    expect(await checkoutKeysOf('default')).toEqual(before.env);
    expect(await checkoutKeysOf('loja-range')).toEqual(before.shop);
    // Refused as bad input, not failed as a bug of the connector's.
    expect(errors()).toEqual([]);
  });

  it('refuses a 16-digit id in every command that takes one, before doing anything', async () => {
    const env = { REDIS_URL: h.redis.url, QUEUE_PREFIX: h.prefix };
    for (const args of [
      ['checkout', 'start', SIXTEEN_DIGITS],
      ['checkout', 'status', SIXTEEN_DIGITS],
      ['services', 'get', SIXTEEN_DIGITS],
      ['services', 'link', SIXTEEN_DIGITS, 'PED-1'],
    ]) {
      const result = await runCliCaptured(args, env);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain('at most 15 digits');
    }
    // `checkout status` takes a service or --unreadable: one of them.
    for (const args of [
      ['checkout', 'status'],
      ['checkout', 'status', '1001', '--unreadable'],
    ]) {
      expect((await runCliCaptured(args, env)).code).toBe(2);
    }
  });

  it('accepts the largest id of the range, 15 nines, on both paths', async () => {
    for (const request of [
      json('/checkout', ROUTE_TOKEN, `{"service_id": ${'9'.repeat(15)}}`),
      form('/checkout', ROUTE_TOKEN, `service_id=${'9'.repeat(15)}`),
    ]) {
      const answer = await send(h.url, request);
      expect(answer.status).toBe(202);
      expect(JSON.parse(answer.body)).toMatchObject({ service_id: 999_999_999_999_999 });
    }
  });

  it('parks a record an older bug left unreadable, shows it, and lets its shop go', async () => {
    await addShop('loja-old');
    const keys = checkoutKeys(h.prefix, await dataScopeOf(h, 'loja-old'));
    // What the route wrote before the range was one: a 16-digit id the store cannot read,
    // in the reconciler's line; and one in the failed set, which the reconciler does not visit.
    const inLine = newCheckoutId('loja-old');
    const inFailedSet = newCheckoutId('loja-old');
    const now = new Date().toISOString();
    for (const id of [inLine, inFailedSet]) {
      await redis.hset(keys.record(id), {
        checkoutId: id,
        serviceId: SIXTEEN_DIGITS,
        provider: 'sandbox',
        state: 'requested',
        createdAt: now,
        updatedAt: now,
        expiresAt: now,
        requests: '1',
        shop: 'loja-old',
      });
    }
    await redis.set(keys.service(Number(SIXTEEN_DIGITS)), inLine);
    await redis.zadd(keys.due, 0, inLine);
    await redis.zadd(keys.parked, Date.now(), inFailedSet);

    // The reconciler parks it out of its line, once, where an operator sees it.
    await eventually(
      async () => ((await redis.zscore(keys.unreadable, inLine)) !== null ? true : undefined),
      undefined,
      'the unreadable record to be parked',
    );
    expect(await redis.zscore(keys.due, inLine)).toBeNull();
    const reported = h.log
      .entries()
      .filter((e) => e.message === 'unreadable checkout record' && e.checkoutId === inLine);
    expect(reported).toEqual([
      expect.objectContaining({ level: 'error', problem: expect.stringContaining('serviceId') }),
    ]);

    // The alert's gauge counts it while it stays.
    const gauge = /^connector_unreadable_checkout_records [1-9]\d*$/m;
    await eventually(
      async () => (gauge.test(await (await fetch(`${h.url}/metrics`)).text()) ? true : undefined),
      undefined,
      'the parked record in its gauge',
    );

    const env = { REDIS_URL: h.redis.url, QUEUE_PREFIX: h.prefix };
    const shown = await runCliCaptured(
      ['checkout', 'status', '--unreadable', '--shop', 'loja-old', '--format', 'json'],
      env,
    );
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(shown.stdout)).toEqual([
      {
        checkout_id: inLine,
        unreadable: true,
        problem: 'serviceId: not a positive integer of at most 15 digits',
        parked_at: expect.any(String),
      },
    ]);
    const table = await runCliCaptured(
      ['checkout', 'status', '--unreadable', '--shop', 'loja-old'],
      env,
    );
    expect(table.stdout).toContain(`checkout ${inLine}  unreadable: serviceId`);

    // Neither the parked record nor the one in the failed set blocks the shop's removal.
    const removed = await adminApi(h, ADMIN_TOKEN)('/shops/loja-old', { method: 'DELETE' });
    expect(removed.status).toBe(204);
    // The reconciler logged it once, not on every pass since.
    expect(
      h.log
        .entries()
        .filter((e) => e.message === 'unreadable checkout record' && e.checkoutId === inLine),
    ).toHaveLength(1);
  });
  it("answers a call for a service whose open checkout's record is unreadable with 409 CHECKOUT_UNREADABLE, not a 500", async () => {
    const keys = checkoutKeys(h.prefix, 'default');
    const serviceId = 777_001;
    const broken = newCheckoutId('default');
    const now = new Date().toISOString();
    // An open checkout of the service whose amount no version of the store wrote.
    await redis.hset(keys.record(broken), {
      checkoutId: broken,
      serviceId: String(serviceId),
      provider: 'sandbox',
      state: 'url_sent',
      amountMinor: 'twelve',
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      requests: '1',
    });
    await redis.set(keys.service(serviceId), broken);

    const paths: InboundRequest[] = [
      json('/checkout', ROUTE_TOKEN, JSON.stringify({ service_id: serviceId })),
      form('/checkout', ROUTE_TOKEN, `service_id=${serviceId}`),
    ];
    for (const request of paths) {
      const answer = await send(h.url, request);
      expect(answer.status).toBe(409);
      const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('CHECKOUT_UNREADABLE');
      expect(body.error.message).toContain(broken);
      expect(body.error.message).toContain('checkout status --unreadable');
    }
    // Said in the log as what it is, with the field, never as a crash of the connector.
    const said = h.log.entries().filter((e) => e.code === 'CHECKOUT_UNREADABLE');
    expect(said.length).toBeGreaterThanOrEqual(paths.length);
    expect(h.log.entries().filter((e) => e.status === 500)).toEqual([]);
    // The record is left as it was, for a person to mend; another service is served.
    expect(await redis.hget(keys.record(broken), 'amountMinor')).toBe('twelve');
    const other = await send(h.url, json('/checkout', ROUTE_TOKEN, '{"service_id": 777002}'));
    expect(other.status).toBe(202);
  });
});
