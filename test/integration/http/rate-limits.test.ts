import type { RunningConnector } from '../../../src/main/compose';
import { ROUTE_TOKEN, startHarness, type Harness } from '../../support/harness';

const USER = 'ops';
const PASSWORD = 'correct-horse-battery';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function checkout(
  url: string,
  token: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...extra },
    body: JSON.stringify({ service_id: 1001 }),
  });
}

async function expectLimited(res: Response, policy: string): Promise<void> {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('ratelimit-policy')).toContain(`"${policy}"`);
  expect(res.headers.get('ratelimit')).toMatch(/r=0/);
  expect(await res.json()).toMatchObject({
    error: { code: 'RATE_LIMITED', request_id: expect.any(String) },
  });
}

describe('rate limits on the public endpoints', () => {
  let h: Harness;
  let second: RunningConnector;
  beforeAll(async () => {
    h = await startHarness({
      env: {
        RATE_LIMIT_CHECKOUT_FAILURES: '3',
        RATE_LIMIT_WEBHOOK_FAILURES: '3',
        RATE_LIMIT_PAGES: '5',
        RATE_LIMIT_DASHBOARD_FAILURES: '2',
        DASHBOARD_USER: USER,
        DASHBOARD_PASSWORD: PASSWORD,
      },
    });
    second = await h.addConnector();
  });
  afterAll(() => h.stop());

  it('refuses wrong tokens past the limit with 429, Retry-After and RateLimit headers, in every api process', async () => {
    for (let i = 0; i < 3; i++) expect((await checkout(h.url, 'wrong')).status).toBe(401);
    // The counts live in Redis: the other process refuses the same address.
    await expectLimited(await checkout(second.url, 'wrong'), 'checkout');
    // X-Forwarded-For is not believed without TRUST_PROXY_HOPS.
    await expectLimited(
      await checkout(h.url, 'wrong', { 'x-forwarded-for': '203.0.113.9' }),
      'checkout',
    );
    // The platform's token is never counted nor refused, even from the refused address.
    expect((await checkout(h.url, ROUTE_TOKEN)).status).toBe(202);
    const logged = h.log.entries().filter((e) => e.code === 'RATE_LIMITED');
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged.every((e) => e.level === 'warn')).toBe(true);
  });

  it('never count the platform: a burst of 200 concurrent calls all pass, far over the limit of 3', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${h.url}/checkout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${ROUTE_TOKEN}` },
          body: JSON.stringify({ service_id: 1001 + (i % 30) }),
        }),
      ),
    );
    expect(answers.map((res) => res.status).filter((status) => status !== 202)).toEqual([]);
  });

  it('counts webhook failures, not delivered events', async () => {
    for (let i = 0; i < 5; i++) {
      expect(
        (await fetch(`${h.url}/webhooks/sandbox`, { method: 'POST', body: '{}' })).status,
      ).toBe(200);
    }
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${h.url}/webhooks/paypal`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(404);
    }
    await expectLimited(
      await fetch(`${h.url}/webhooks/sandbox`, { method: 'POST', body: '{}' }),
      'webhooks',
    );
  });

  it('counts every request to the customer pages', async () => {
    const page = `${h.url}/return/sandbox?checkout_id=chk_000000000000000000000000`;
    for (let i = 0; i < 5; i++) expect((await fetch(page)).status).toBe(404);
    await expectLimited(await fetch(page), 'pages');
    await expectLimited(await fetch(`${h.url}/sandbox/checkout/chk_x`), 'pages');
  });

  it('refuses dashboard logins past the limit of wrong passwords, never the right one', async () => {
    const dashboard = `${h.url}/admin/queues/api/queues`;
    expect(
      (await fetch(dashboard, { headers: { authorization: basic(USER, PASSWORD) } })).status,
    ).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(dashboard, { headers: { authorization: basic(USER, 'guess') } });
      expect(res.status).toBe(401);
    }
    await expectLimited(
      await fetch(dashboard, { headers: { authorization: basic(USER, 'guess') } }),
      'dashboard',
    );
    // The operator's own password still opens it: a guesser cannot lock the operator out.
    expect(
      (await fetch(dashboard, { headers: { authorization: basic(USER, PASSWORD) } })).status,
    ).toBe(200);
  });

  it('leaves health and metrics unlimited', async () => {
    for (let i = 0; i < 20; i++) expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  });
});

describe('rate limits behind a proxy (TRUST_PROXY_HOPS=1)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { TRUST_PROXY_HOPS: '1', RATE_LIMIT_CHECKOUT_FAILURES: '2' },
    });
  });
  afterAll(() => h.stop());

  it('counts each client address the proxy names on its own', async () => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (let i = 0; i < 2; i++) {
      expect((await checkout(h.url, 'wrong', from('203.0.113.1'))).status).toBe(401);
    }
    await expectLimited(await checkout(h.url, 'wrong', from('203.0.113.1')), 'checkout');
    expect((await checkout(h.url, ROUTE_TOKEN, from('203.0.113.2'))).status).toBe(202);
  });
});

describe('rate limits at their defaults', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('never throttle the platform: a hundred accepted checkout calls in a row all pass', async () => {
    for (let i = 0; i < 100; i++) {
      const res = await checkout(h.url, ROUTE_TOKEN);
      expect(res.status).toBe(202);
    }
  });

  it('say their policy on the answers they count', async () => {
    const res = await checkout(h.url, 'wrong');
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"checkout"; q=30; w=60/);
  });
});
