import express from 'express';
import { eventually, WAIT_DEADLINE_MS } from '../../support/harness';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { listen } from '../../support/http-app';

const auth = {
  authorization: `Basic ${Buffer.from(`${DEMO_CREDENTIALS.email}:${DEMO_CREDENTIALS.password}`).toString('base64')}`,
  'x-dreamfactory-api-key': DEMO_CREDENTIALS.apiKey,
};

async function call(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    ...init,
    headers: { ...auth, 'content-type': 'application/json', ...init.headers },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

describe('platform simulator', () => {
  let simulator: PlatformSimulator;
  let url: string;
  beforeEach(async () => {
    simulator = new PlatformSimulator({ serviceCount: 12, chance: () => 0.5 });
    url = await simulator.start();
  });
  afterEach(() => simulator.stop());

  it('requires Basic auth and the API key, answering DreamFactory errors', async () => {
    const noKey = await fetch(`${url}/services`, {
      headers: { authorization: auth.authorization },
    });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({
      error: {
        code: 401,
        status_code: 401,
        message: expect.stringContaining('API Key'),
        context: null,
      },
    });
    const badPassword = await fetch(`${url}/services`, {
      headers: { ...auth, authorization: 'Basic eDp5' },
    });
    expect(badPassword.status).toBe(401);
  });

  it('pages with resource and meta, and caps the page size', async () => {
    const first = await call(`${url}/services?limit=5`);
    expect(first.body.meta).toEqual({ count: 12, next: 5 });
    expect(first.body.resource).toHaveLength(5);
    const last = await call(`${url}/services?limit=5&offset=10`);
    expect(last.body.meta.next).toBeNull();
    const big = new PlatformSimulator({ serviceCount: 800, maxPageSize: 500 });
    const bigUrl = await big.start();
    try {
      expect((await call(`${bigUrl}/services?limit=10000`)).body.resource).toHaveLength(500);
    } finally {
      await big.stop();
    }
    expect((await call(`${url}/services?limit=abc`)).status).toBe(400);
  });

  it('serves a realistic detail with zoneless dates, and 404 for an unknown id', async () => {
    const detail = await call(`${url}/services/1003`);
    expect(detail.body.status.created_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(detail.body.parts[0]).toHaveProperty('c1');
    expect(detail.body.materials.boards[0].price).toBeGreaterThan(0);
    expect((await call(`${url}/services/99`)).status).toBe(404);
  });

  it('updates internal_code with PUT and nothing else', async () => {
    expect(
      (
        await call(`${url}/services/1001`, {
          method: 'PUT',
          body: JSON.stringify({ internal_code: 'ERP-1' }),
        })
      ).body.internal_code,
    ).toBe('ERP-1');
    expect((await call(`${url}/services/1001`)).body.internal_code).toBe('ERP-1');
    expect(
      (
        await call(`${url}/services/1001`, {
          method: 'PUT',
          body: JSON.stringify({ observation: 'x' }),
        })
      ).status,
    ).toBe(400);
  });

  it('records payment calls, validates their bodies, and approves on finish', async () => {
    expect(
      (
        await call(`${url}/payment/checkout-url`, {
          method: 'POST',
          body: JSON.stringify({ service_id: 1002, checkout_url: 'not a url' }),
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(`${url}/payment/finish-checkout`, {
          method: 'POST',
          body: JSON.stringify({ service_id: 5, transaction_id: 't' }),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(`${url}/payment/finish-checkout`, {
          method: 'POST',
          headers: { 'idempotency-key': 'k1' },
          body: JSON.stringify({ service_id: 1002, transaction_id: 'tx' }),
        })
      ).status,
    ).toBe(200);
    expect(simulator.state.payments.map((p) => p.status)).toEqual([400, 404, 200]);
    expect(simulator.accepted('finish-checkout')).toEqual([
      expect.objectContaining({ serviceId: 1002, idempotencyKey: 'k1' }),
    ]);
    expect((await call(`${url}/services/1002`)).body.status.code).toBe(6);
    expect((await call(`${url}/__simulator/calls`)).body.payments).toHaveLength(3);
    const tail = (await call(`${url}/__simulator/calls?from=2`)).body;
    expect(tail).toMatchObject({ total: 3, payments: [expect.objectContaining({ status: 200 })] });
    expect(tail.payments).toHaveLength(1);
  });

  it('answers a malformed body with a DreamFactory 400', async () => {
    const res = await call(`${url}/payment/cancel-checkout`, {
      method: 'POST',
      body: '{"service_id":',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Malformed request body.');
  });

  it('injects faults by path, method, rate and count, over HTTP too', async () => {
    simulator.faults.add({
      match: '/payment/',
      method: 'POST',
      status: 503,
      retryAfterS: 7,
      times: 1,
    });
    simulator.faults.add({ match: '/services', rate: 0.4, status: 500 }); // chance() is 0.5: never applies
    const body = JSON.stringify({ service_id: 1001, reason: 'r' });
    const faulted = await call(`${url}/payment/cancel-checkout`, { method: 'POST', body });
    expect(faulted.status).toBe(503);
    expect(faulted.headers.get('retry-after')).toBe('7');
    expect((await call(`${url}/payment/cancel-checkout`, { method: 'POST', body })).status).toBe(
      200,
    );
    expect((await call(`${url}/services`)).status).toBe(200);
    const added = await call(`${url}/__simulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ match: '/services', status: 502 }),
    });
    expect(added.status).toBe(201);
    expect((await call(`${url}/services`)).status).toBe(502);
    expect(
      (
        await call(`${url}/__simulator/faults`, {
          method: 'POST',
          body: JSON.stringify({ status: 'x' }),
        })
      ).status,
    ).toBe(400);
    await fetch(`${url}/__simulator/faults`, { method: 'DELETE' });
    expect((await call(`${url}/services`)).status).toBe(200);
  });

  it('refuses connections for a while on request, then serves again', async () => {
    expect(
      (
        await call(`${url}/__simulator/refuse`, {
          method: 'POST',
          body: JSON.stringify({ ms: 2000 }),
        })
      ).status,
    ).toBe(202);
    // The refusal starts once the answer above is sent: first refused, then served again.
    await eventually(
      () =>
        fetch(`${url}/services`, { headers: auth }).then(
          () => undefined,
          () => true,
        ),
      WAIT_DEADLINE_MS,
      'the simulator to refuse',
    );
    await eventually(
      () =>
        call(`${url}/services`).then(
          (res) => (res.status === 200 ? true : undefined),
          () => undefined,
        ),
      WAIT_DEADLINE_MS,
      'the simulator to listen again',
    );
  });

  it("plays the platform's side: asks the connector's checkout route with the token", async () => {
    const received: Array<{ body: unknown; authorization: string | undefined }> = [];
    const app = express();
    app.use(express.json());
    app.post('/checkout', (req, res) => {
      received.push({ body: req.body, authorization: req.get('authorization') });
      res.status(202).json({ service_id: 1004, checkout_id: 'c1', status: 'accepted' });
    });
    const connector = await listen(app);
    const platform = new PlatformSimulator({
      connector: { checkoutUrl: `${connector.url}/checkout`, token: 'tok-123' },
    });
    const platformUrl = await platform.start();
    try {
      const viaHttp = await call(`${platformUrl}/__simulator/checkout-requests`, {
        method: 'POST',
        body: JSON.stringify({ service_id: 1004 }),
      });
      expect(viaHttp.body.connector).toEqual({
        status: 202,
        body: { service_id: 1004, checkout_id: 'c1', status: 'accepted' },
      });
      expect(received).toEqual([{ body: { service_id: 1004 }, authorization: 'Bearer tok-123' }]);
    } finally {
      await platform.stop();
      await connector.close();
    }
  });
});
