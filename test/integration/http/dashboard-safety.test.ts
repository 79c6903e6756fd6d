import {
  startHarness,
  eventually,
  settled,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';

const USER = 'ops';
const PASSWORD = 'dashboard-pass-123';
const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

describe('the dashboard is read-mostly and refuses cross-site writes', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ env: { DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD } });
    base = `${h.url}/admin/queues`;
  });
  afterAll(() => h.stop());

  const write = (
    method: string,
    path: string,
    options: { origin?: string; type?: string; body?: string; site?: string } = {},
  ) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: auth,
        ...(options.origin === undefined ? {} : { origin: options.origin }),
        ...(options.site === undefined ? {} : { 'sec-fetch-site': options.site }),
        ...(options.type === undefined ? {} : { 'content-type': options.type }),
      },
      body: options.body,
    });

  /** A failed finish delivery, the thing operators retry. */
  async function failedDelivery(serviceId: number): Promise<string> {
    h.simulator.faults.add({ match: '/payment/finish-checkout', status: 400, times: 1 });
    await h.simulator.requestCheckout(serviceId);
    const url = await eventually(() => h.simulator.checkoutUrlFor(serviceId));
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    const queue = h.connector.jobs.notificationQueue;
    const failed = await eventually(
      async () => (await queue.getFailed()).find((job) => job.data.checkoutId !== undefined),
      WAIT_DEADLINE_MS,
      'a failed delivery',
    );
    return String(failed.id);
  }

  it('sends its own security headers: a CSP that forbids framing, no caching', async () => {
    const res = await fetch(base, { headers: { authorization: auth } });
    expect(res.status).toBe(200);
    const csp = String(res.headers.get('content-security-policy'));
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    // bull-board's own Express app does not announce itself, on its page or its API.
    expect(res.headers.get('x-powered-by')).toBeNull();
    const api = await fetch(`${base}/api/queues`, { headers: { authorization: auth } });
    expect(api.status).toBe(200);
    expect(api.headers.get('x-powered-by')).toBeNull();
    // Even the credential challenge carries them.
    const challenge = await fetch(base);
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it.each([
    ['POST', '/api/queues/notifications/add', '{"name":"finish","data":{"checkoutId":"x"}}'],
    ['PATCH', '/api/queues/notifications/finish-x/update-data', '{"data":{}}'],
    ['PUT', '/api/queues/notifications/empty', undefined],
    ['PUT', '/api/queues/notifications/obliterate', undefined],
    ['PUT', '/api/queues/notifications/pause', undefined],
    ['PUT', '/api/queues/notifications/promote', undefined],
  ])('refuses %s %s, which it does not offer, and adds nothing', async (method, path, body) => {
    // A delivery another test retried may still be running: counts are compared at rest.
    await settled(h.connector.jobs);
    const before = await h.connector.jobs.notificationQueue.getJobCounts();
    const res = await write(method, path, {
      origin: h.url,
      type: body ? 'application/json' : undefined,
      body,
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect(await h.connector.jobs.notificationQueue.getJobCounts()).toEqual(before);
    expect(await h.connector.jobs.notificationQueue.isPaused()).toBe(false);
  });

  it.each([
    ['no Origin', {}],
    ['another site', { origin: 'https://evil.example' }],
    ['a cross-site fetch', { origin: 'http://placeholder', site: 'cross-site' }],
  ])('refuses a retry from %s', async (_what, headers: { origin?: string; site?: string }) => {
    const origin = headers.origin === 'http://placeholder' ? h.url : headers.origin;
    const res = await write('PUT', '/api/queues/notifications/retry/failed', {
      ...headers,
      origin,
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it("answers bull-board's own errors in the CONTRACT shape, keeping the key its UI reads", async () => {
    const res = await fetch(`${base}/api/queues/notifications/no-such-job`, {
      headers: { authorization: auth },
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      error: {
        key: 'ERRORS.JOB_NOT_FOUND',
        code: 'NOT_FOUND',
        message: expect.any(String),
        details: [],
        request_id: expect.any(String),
      },
    });
  });

  it('refuses a text/plain write (a form could send one cross-site) with 415', async () => {
    const res = await write('PUT', '/api/queues/notifications/retry/failed', {
      origin: h.url,
      type: 'text/plain',
      body: 'x',
    });
    expect(res.status).toBe(415);
  });

  it('retries a failed delivery from its own origin, and logs who did it', async () => {
    const jobId = await failedDelivery(1002);
    const res = await write('PUT', `/api/queues/notifications/${jobId}/retry`, {
      origin: h.url,
      site: 'same-origin',
    });
    expect(res.status).toBe(204);
    await eventually(
      () => h.simulator.accepted('finish-checkout').find((call) => call.serviceId === 1002),
      WAIT_DEADLINE_MS,
      'the finish after the retry',
    );
    const line = h.log.entries().find((e) => e.message === 'dashboard write');
    expect(line).toMatchObject({
      level: 'info',
      operator: USER,
      method: 'PUT',
      path: `/api/queues/notifications/${jobId}/retry`,
      status: 204,
    });
    expect(h.log.text()).not.toContain(PASSWORD);
  });
});
