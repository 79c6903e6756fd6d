import { checkoutKeys } from '../../../src/store/checkout-keys';
import { closeRedis, createRedis } from '../../../src/infra/redis';
import {
  eventually,
  ROUTE_TOKEN,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', body, headers, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // an HTML page or an empty redirect
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

describe('checkout flow with the sandbox provider', () => {
  let h: Harness;
  beforeAll(async () => {
    // One test stops and starts Redis: a private one, whatever REDIS_URL says.
    h = await startHarness({ start: { produceBackoffMs: 50 }, privateRedis: true });
  });
  afterAll(() => h.stop());

  const checkoutUrlOf = (serviceId: number) =>
    eventually(
      () => h.simulator.checkoutUrlFor(serviceId),
      WAIT_DEADLINE_MS,
      `checkout url of ${serviceId}`,
    );
  const calls = (
    endpoint: 'checkout-url' | 'finish-checkout' | 'cancel-checkout',
    serviceId: number,
  ) => h.simulator.accepted(endpoint).filter((c) => c.serviceId === serviceId);

  it('walks a checkout from request to finish', async () => {
    const requested = await h.simulator.requestCheckout(1001);
    expect(requested.status).toBe(202);
    expect(requested.body).toEqual({
      service_id: 1001,
      checkout_id: expect.stringMatching(/^chk_[0-9a-f]{24}$/),
      status: 'accepted',
    });
    const checkoutId = (requested.body as { checkout_id: string }).checkout_id;

    const url = await checkoutUrlOf(1001);
    expect(url).toBe(`${h.url}/sandbox/checkout/${checkoutId}`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Pedido nº 1001');
    expect(html).toMatch(/R\$\s?[\d.]+,\d{2}/);

    const paid = await post(`${url}/pay`, '');
    expect(paid.status).toBe(303);
    const returnUrl = paid.headers.get('location') ?? '';
    expect(returnUrl).toBe(`${h.url}/return/sandbox?checkout_id=${checkoutId}`);
    expect(await (await fetch(returnUrl)).text()).toContain('Pagamento confirmado');

    const finish = await eventually(
      () => calls('finish-checkout', 1001)[0],
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toEqual({
      service_id: 1001,
      transaction_id: expect.stringMatching(/^sbx_pay_[0-9a-f]{16}$/),
    });
    expect(finish.idempotencyKey).toBe(`finish:${checkoutId}`);
    await eventually(async () =>
      (await h.connector.deps.store.get(checkoutId))?.state === 'reported' ? true : undefined,
    );
    expect(calls('cancel-checkout', 1001)).toHaveLength(0);
  });

  it('reports a declined payment as one cancel', async () => {
    await h.simulator.requestCheckout(1002);
    const url = await checkoutUrlOf(1002);
    expect((await post(`${url}/decline`, '')).status).toBe(303);
    const cancel = await eventually(
      () => calls('cancel-checkout', 1002)[0],
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1002, reason: 'declined in the sandbox' });
    expect(calls('finish-checkout', 1002)).toHaveLength(0);
  });

  it('changes nothing when the customer pays twice, or declines after paying', async () => {
    await h.simulator.requestCheckout(1003);
    const url = await checkoutUrlOf(1003);
    await Promise.all([post(`${url}/pay`, ''), post(`${url}/pay`, ''), post(`${url}/decline`, '')]);
    await post(`${url}/pay`, '');
    await eventually(() => calls('finish-checkout', 1003)[0] ?? calls('cancel-checkout', 1003)[0]);
    await settled(h.connector.jobs);
    expect(calls('finish-checkout', 1003).length + calls('cancel-checkout', 1003).length).toBe(1);
    expect(await (await fetch(url)).text()).toMatch(/já foi pago|foi recusado/);
  });

  it('re-sends the same URL on a repeat request and creates no second payment', async () => {
    const first = await h.simulator.requestCheckout(1004);
    const url = await checkoutUrlOf(1004);
    // A repeat while the URL is still on its way is answered by that URL: wait until the
    // connector has recorded it sent, so this one is a repeat of a complete request.
    const checkoutId = (first.body as { checkout_id: string }).checkout_id;
    await eventually(async () =>
      (await h.connector.deps.store.get(checkoutId))?.state === 'url_sent' ? true : undefined,
    );
    const second = await h.simulator.requestCheckout(1004);
    expect((second.body as { checkout_id: string }).checkout_id).toBe(
      (first.body as { checkout_id: string }).checkout_id,
    );
    await eventually(() => (calls('checkout-url', 1004).length >= 2 ? true : undefined));
    const urls = calls('checkout-url', 1004).map(
      (c) => (c.body as { checkout_url: string }).checkout_url,
    );
    expect(new Set(urls)).toEqual(new Set([url]));
    expect(new Set(calls('checkout-url', 1004).map((c) => c.idempotencyKey)).size).toBe(
      urls.length,
    );
  });

  it('creates exactly one checkout for twenty concurrent requests', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.simulator.requestCheckout(1005)),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    expect(new Set(answers.map((a) => (a.body as { checkout_id: string }).checkout_id)).size).toBe(
      1,
    );
    await checkoutUrlOf(1005);
    await settled(h.connector.jobs);
    const urls = calls('checkout-url', 1005).map(
      (c) => (c.body as { checkout_url: string }).checkout_url,
    );
    expect(new Set(urls).size).toBe(1);
    const keys = await h.connector.deps.store.get(
      (answers[0]!.body as { checkout_id: string }).checkout_id,
    );
    expect(keys?.state).toBe('url_sent');
  });

  it('starts a new checkout after the previous one ended, and refuses one after payment', async () => {
    const first = await h.simulator.requestCheckout(1006);
    const firstUrl = await checkoutUrlOf(1006);
    await post(`${firstUrl}/decline`, '');
    await eventually(() => calls('cancel-checkout', 1006)[0]);
    const second = await h.simulator.requestCheckout(1006);
    expect(second.status).toBe(202);
    expect((second.body as { checkout_id: string }).checkout_id).not.toBe(
      (first.body as { checkout_id: string }).checkout_id,
    );
    const secondUrl = await eventually(() => {
      const url = h.simulator.checkoutUrlFor(1006);
      return url !== firstUrl ? url : undefined;
    });
    await post(`${secondUrl}/pay`, '');
    await eventually(() => calls('finish-checkout', 1006)[0]);
    const third = await h.simulator.requestCheckout(1006);
    expect(third.status).toBe(409);
    expect((third.body as { error: { code: string } }).error.code).toBe('CHECKOUT_ALREADY_PAID');
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

  it('records how the customer paid on the page: Pay by card, Pix, boleto', async () => {
    const open = async (serviceId: number) => {
      const checkoutId = (
        (await h.simulator.requestCheckout(serviceId)).body as { checkout_id: string }
      ).checkout_id;
      return { checkoutId, url: await checkoutUrlOf(serviceId) };
    };
    const recordOf = async (id: string) => h.connector.deps.store.get(id);

    const card = await open(1011);
    // Each method has its own button and action.
    const page = await (await fetch(card.url)).text();
    const path = new URL(card.url).pathname;
    for (const action of ['pay', 'pix', 'boleto']) {
      expect(page).toContain(`action="${path.replace(/\/$/, '')}/${action}"`);
    }
    expect((await post(`${card.url}/pay`, '')).status).toBe(303);
    expect(await recordOf(card.checkoutId)).toMatchObject({ outcome: 'paid', method: 'card' });

    const pix = await open(1012);
    expect((await post(`${pix.url}/pix`, '')).status).toBe(303);
    expect(await recordOf(pix.checkoutId)).toMatchObject({ state: 'processing', method: 'pix' });
    // The bank confirms it (Pay on the page under way): paid, still by Pix.
    expect((await post(`${pix.url}/pay`, '')).status).toBe(303);
    expect(await recordOf(pix.checkoutId)).toMatchObject({ outcome: 'paid', method: 'pix' });

    const boleto = await open(1013);
    expect((await post(`${boleto.url}/boleto`, '')).status).toBe(303);
    expect(await recordOf(boleto.checkoutId)).toMatchObject({
      state: 'processing',
      method: 'boleto',
    });
    expect(await (await fetch(boleto.url)).text()).toContain('Pagamento em processamento');
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

describe('the checkout route refuses bad callers and bad input', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());
  const route = () => `${h.url}/checkout`;
  const json = { 'content-type': 'application/json' };

  it.each([
    ['no token', {}, ''],
    ['a wrong bearer token', { authorization: 'Bearer wrong-token-value' }, ''],
    ['a wrong api key', { 'x-api-key': 'nope' }, ''],
    ['a wrong query token', {}, '?token=nope'],
  ])('answers 401 to %s', async (_name, headers, query) => {
    const res = await post(`${route()}${query}`, '{"service_id": 1001}', { ...json, ...headers });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['X-Api-Key', { 'x-api-key': ROUTE_TOKEN }, ''],
    ['?token=', {}, `?token=${ROUTE_TOKEN}`],
  ])('accepts the token as %s', async (_name, headers, query) => {
    const res = await post(`${route()}${query}`, '{"service_id": "1010"}', { ...json, ...headers });
    expect(res.status).toBe(202);
    expect(res.body.service_id).toBe(1010);
  });

  it('accepts a form body and a query parameter', async () => {
    const auth = { authorization: `Bearer ${ROUTE_TOKEN}` };
    const form = await post(route(), 'service_id=1011', {
      ...auth,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(202);
    expect(form.body.service_id).toBe(1011);
    const query = await post(`${route()}?service_id=1012`, '', auth);
    expect(query.status).toBe(202);
    expect(query.body.service_id).toBe(1012);
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

  it('answers malformed JSON with 400 and a log line, and the token never reaches the log', async () => {
    const res = await post(route(), '{"service_id": ', {
      ...json,
      authorization: `Bearer ${ROUTE_TOKEN}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
    expect(h.log.text()).not.toContain(ROUTE_TOKEN);
  });
});
