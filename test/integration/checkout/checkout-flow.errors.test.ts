import { checkoutKeys } from '../../../src/store/checkout-keys';
import { closeRedis, createRedis } from '../../../src/redis/redis';
import { checkoutRouteWorld, post, sandboxFlowWorld } from '../../support/checkout-flow-world';
import { eventually, ROUTE_TOKEN, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';

/*
 * The checkout flow (docs/checkout-flow.md) when something fails or is refused: an unknown service
 * fails fast; a platform that fails to take the checkout URL is retried, and a cancel follows when
 * it never takes it; the checkout route answers a bad service_id with 400, an unknown provider's
 * webhook with 404 and a huge body with 413, an unexpected failure with 500 INTERNAL in JSON, and
 * Redis away with 503 REDIS_UNAVAILABLE (the suite's own redis-server, stopped and started), and
 * recovers from both.
 */
describe('checkout flow with the sandbox provider: failures', () => {
  const world = sandboxFlowWorld();
  const { checkoutUrlOf, calls } = world;
  let h: Harness;
  beforeAll(() => {
    h = world.h;
  });

  it('fails an unknown service fast, with no URL and no cancel', async () => {
    const answer = await h.simulator.requestCheckout(9999);
    expect(answer.status).toBe(202);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const record = await eventually(async () => {
      const r = await h.connector.deps.store.get(checkoutId);
      return r?.state === 'failed' ? r : undefined;
    });
    expect(record.reason).toBe('service not found');
    expect(calls('checkout-url', 9999)).toHaveLength(0);
    expect(calls('cancel-checkout', 9999)).toHaveLength(0);
    expect(
      h.log
        .entries()
        .some((e) => e.message === 'checkout for an unknown service' && e.level === 'error'),
    ).toBe(true);
  });

  it('retries posting the URL while the platform fails, then delivers it', async () => {
    h.simulator.faults.add({ match: '/payment/checkout-url', status: 503, times: 2 });
    await h.simulator.requestCheckout(1007);
    await checkoutUrlOf(1007);
    expect(
      h.simulator.state.payments.filter(
        (c) => c.endpoint === 'checkout-url' && c.serviceId === 1007,
      ),
    ).toHaveLength(1);
  });

  it('cancels when the URL can never be posted', async () => {
    h.simulator.faults.add({ match: '/payment/checkout-url', status: 503 });
    try {
      const answer = await h.simulator.requestCheckout(1008);
      const cancel = await eventually(
        () => calls('cancel-checkout', 1008)[0],
        WAIT_DEADLINE_MS,
        'cancel after giving up',
      );
      expect(cancel.body).toEqual({
        service_id: 1008,
        reason: 'checkout could not be produced (PLATFORM_UNAVAILABLE)',
      });
      // The platform's answer to the cancel is recorded just after it arrives.
      const record = await eventually(
        async () => {
          const current = await h.connector.deps.store.get(
            (answer.body as { checkout_id: string }).checkout_id,
          );
          return current?.state === 'reported' ? current : undefined;
        },
        WAIT_DEADLINE_MS,
        'the cancel recorded as reported',
      );
      expect(record.outcome).toBe('failed');
    } finally {
      h.simulator.faults.clear();
    }
  });
});

describe('the checkout route refuses bad input, and recovers from failures', () => {
  const world = checkoutRouteWorld({ privateRedis: true });
  const { route, json } = world;
  let h: Harness;
  beforeAll(() => {
    h = world.h;
  });

  it.each([
    ['missing', '{}', 'VALIDATION_FAILED'],
    ['not a number', '{"service_id": "abc"}', 'INVALID_SERVICE_ID'],
    ['negative', '{"service_id": -5}', 'INVALID_SERVICE_ID'],
    ['a fraction', '{"service_id": 10.5}', 'INVALID_SERVICE_ID'],
    ['an object', '{"service_id": {"$gt": 1}}', 'INVALID_SERVICE_ID'],
    ['16 digits', '{"service_id": 1234567890123456}', 'INVALID_SERVICE_ID'],
    ['absurdly large', '{"service_id": 123456789012345678901234567890}', 'INVALID_SERVICE_ID'],
  ])('answers 400 when service_id is %s', async (_name, body, code) => {
    const res = await post(route(), body, { ...json, authorization: `Bearer ${ROUTE_TOKEN}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code,
      details: [{ field: 'service_id', problem: expect.any(String) }],
    });
  });

  it('answers webhooks: the sandbox has none, unknown providers are refused, huge bodies too', async () => {
    const sandbox = await post(`${h.url}/webhooks/sandbox`, '{"id": "evt_1"}', json);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body).toEqual({
      received: true,
      ignored: expect.stringContaining('no webhooks'),
    });
    const unknown = await post(`${h.url}/webhooks/paypal`, '{}', json);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('UNKNOWN_PROVIDER');
    const huge = await post(`${h.url}/webhooks/sandbox`, 'x'.repeat(300 * 1024), json);
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers an unexpected failure with 500 INTERNAL in JSON, logs it, and recovers', async () => {
    const auth = { ...json, authorization: `Bearer ${ROUTE_TOKEN}` };
    // Data no version of the connector writes: the service's pointer is a list, not a string.
    const pointer = checkoutKeys(h.prefix, 'default').service(1014);
    const admin = createRedis(h.redis.url, 'producer', 'test-admin');
    try {
      await eventually(() => (admin.status === 'ready' ? true : undefined));
      await admin.rpush(pointer, 'not-a-checkout-id');
      const res = await post(route(), '{"service_id": 1014}', auth);
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toEqual({
        error: {
          code: 'INTERNAL',
          message: 'Something went wrong; the log has the details.',
          details: [],
          request_id: expect.any(String),
        },
      });
      expect(JSON.stringify(res.body)).not.toMatch(/WRONGTYPE|\n\s+at /);
      const crashed = h.log
        .entries()
        .find((e) => e.message === 'request crashed' && e.requestId === res.body.error.request_id);
      expect(crashed).toMatchObject({
        level: 'error',
        errMessage: expect.stringContaining('WRONGTYPE'),
      });
      await admin.del(pointer);
      expect((await post(route(), '{"service_id": 1014}', auth)).status).toBe(202);
    } finally {
      await closeRedis(admin);
    }
  });

  it('answers 503 REDIS_UNAVAILABLE while Redis is down, and works again after', async () => {
    const auth = { ...json, authorization: `Bearer ${ROUTE_TOKEN}` };
    await h.redis.stop();
    try {
      const res = await post(route(), '{"service_id": 1013}', auth);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
      expect(res.headers.get('content-type')).toContain('application/json');
      const metrics = await fetch(`${h.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
      expect((await fetch(`${h.url}/readyz`)).status).toBe(503);
    } finally {
      await h.redis.start();
    }
    const again = await eventually(
      async () => {
        const res = await post(route(), '{"service_id": 1013}', auth);
        return res.status === 202 ? res : undefined;
      },
      WAIT_DEADLINE_MS,
      'the route to recover',
    );
    expect(again.body.service_id).toBe(1013);
  });
});
