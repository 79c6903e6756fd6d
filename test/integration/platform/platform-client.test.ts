import express from 'express';
import { dateTextOf, statusCodeOf } from '../../../src/platform/schemas';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { AppError } from '../../../src/errors';
import { PlatformClient, type PlatformClientOptions } from '../../../src/platform/platform-client';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { captureLog } from '../../support/log-capture';
import { startPlatform } from '../../support/platform';

type Started = Awaited<ReturnType<typeof startPlatform>>;

async function caught(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('platform client against the simulator', () => {
  let platform: Started;

  beforeEach(async () => {
    // The CLI's client: brief GET retries on transient answers.
    platform = await startPlatform({ serviceCount: 30 }, { getRetries: 2 });
  });
  afterEach(async () => {
    await platform.simulator.stop();
  });

  it('reads one page of services with meta.next', async () => {
    const page = await platform.client.listServices({}, { limit: 10, offset: 0 });
    expect(page.items.map((s) => s.id)).toEqual(Array.from({ length: 10 }, (_, i) => 1001 + i));
    expect(page.next).toBe(10);
    expect(page.count).toBe(30);
    const last = await platform.client.listServices({}, { limit: 10, offset: 20 });
    expect(last.next).toBeNull();
    // Fields the connector does not use pass through as the platform sent them.
    const status = last.items[0]?.status as { created_date?: unknown };
    expect(status.created_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(dateTextOf(status.created_date)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  it('passes filters through to the platform', async () => {
    const approved = [];
    for await (const item of platform.client.iterateServices({ status: 6 }, { pageSize: 4 }))
      approved.push(item);
    expect(approved.length).toBeGreaterThan(0);
    expect(approved.every((s) => statusCodeOf(s.status) === 6)).toBe(true);
  });

  it('reads a service in full, with parts, labour and materials', async () => {
    const lookup = await platform.client.getService(1004);
    expect(lookup).toMatchObject({
      found: true,
      service: {
        id: 1004,
        labour: { cutting: { price: expect.any(Number) } },
        materials: { boards: [{ description: expect.stringMatching(/^MD[FP] /) }] },
      },
    });
    const parts = (lookup as unknown as { service: { parts: unknown[] } }).service.parts;
    expect(parts.length).toBeGreaterThan(2);
  });

  it('answers a missing service with a typed not-found outcome', async () => {
    await expect(platform.client.getService(999_999)).resolves.toEqual({ found: false });
    await expect(platform.client.linkService(999_999, 'PED-1')).resolves.toBe(false);
  });

  it('refuses a non-integer id before any request', async () => {
    const error = await caught(platform.client.getService(1.5));
    expect(error.code).toBe('VALIDATION_FAILED');
  });

  it('links an ERP order code with PUT internal_code', async () => {
    await expect(platform.client.linkService(1002, 'ERP-77')).resolves.toBe(true);
    const page = await platform.client.listServices(
      { internal_code: 'ERP-77' },
      { limit: 5, offset: 0 },
    );
    expect(page.items.map((s) => s.id)).toEqual([1002]);
  });

  it('sends payment calls with their bodies and Idempotency-Key', async () => {
    await platform.client.postCheckoutUrl({
      serviceId: 1001,
      checkoutUrl: 'https://pay.example/c/1',
      idempotencyKey: 'k-1',
    });
    await platform.client.finishCheckout({
      serviceId: 1001,
      transactionId: 'tx-9',
      idempotencyKey: 'k-2',
    });
    await platform.client.cancelCheckout({
      serviceId: 1002,
      reason: 'declined',
      idempotencyKey: 'k-3',
    });
    expect(
      platform.simulator.state.payments.map((c) => [
        c.endpoint,
        c.body,
        c.idempotencyKey,
        c.status,
      ]),
    ).toEqual([
      ['checkout-url', { service_id: 1001, checkout_url: 'https://pay.example/c/1' }, 'k-1', 200],
      ['finish-checkout', { service_id: 1001, transaction_id: 'tx-9' }, 'k-2', 200],
      ['cancel-checkout', { service_id: 1002, reason: 'declined' }, 'k-3', 200],
    ]);
  });

  it('turns a 401 into a rejection the queues keep retrying (a person must fix it)', async () => {
    const log = captureLog();
    const client = clientFor(platform.baseUrl, {
      password: 'wrong',
      getRetries: 2,
      logger: log.logger,
    });
    const error = await caught(client.getService(1001));
    expect(error.code).toBe('PLATFORM_REJECTED');
    expect(error.retryable).toBe(true);
    expect(error.upstreamStatus).toBe(401);
    // What the platform said is kept for the log, never in the message an answer repeats.
    expect(error.message).toMatch(/^The platform answered 401 to GET \S+\.$/);
    expect(error.cause).toBe('Invalid credentials supplied.');
    // The client's own brief GET retries are for transient answers only.
    expect(log.entries().filter((e) => e.message === 'platform request retrying')).toEqual([]);
  });

  it('turns a 400 into a rejection no retry can help', async () => {
    platform.simulator.faults.add({ match: '/services', status: 400 });
    const error = await caught(platform.client.getService(1001));
    expect(error).toMatchObject({
      code: 'PLATFORM_REJECTED',
      retryable: false,
      upstreamStatus: 400,
    });
  });

  it('makes one attempt by default', async () => {
    platform.simulator.faults.add({ match: '/services', status: 503, times: 1 });
    const client = clientFor(platform.baseUrl);
    await expect(caught(client.getService(1001))).resolves.toMatchObject({
      code: 'PLATFORM_UNAVAILABLE',
    });
    await expect(client.getService(1001)).resolves.toMatchObject({ found: true });
  });

  it('retries a GET after a 503 and succeeds', async () => {
    platform.simulator.faults.add({ match: '/services', status: 503, times: 2 });
    const lookup = await platform.client.getService(1001);
    expect(lookup.found).toBe(true);
    expect(
      platform.log.entries().filter((e) => e.message === 'platform request retrying'),
    ).toHaveLength(2);
  });

  it('gives up on a GET after its brief retries with a transient error', async () => {
    platform.simulator.faults.add({ match: '/services', status: 502 });
    const error = await caught(platform.client.getService(1001));
    expect(error).toMatchObject({
      code: 'PLATFORM_UNAVAILABLE',
      retryable: true,
      upstreamStatus: 502,
    });
  });

  it('honours a short Retry-After on 429 for GETs', async () => {
    platform.simulator.faults.add({ match: '/services', status: 429, retryAfterS: 1, times: 1 });
    const started = Date.now();
    await expect(platform.client.getService(1001)).resolves.toMatchObject({ found: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('hands a long Retry-After back to the caller instead of sleeping', async () => {
    platform.simulator.faults.add({ match: '/services', status: 429, retryAfterS: 120 });
    const error = await caught(platform.client.getService(1001));
    expect(error).toMatchObject({
      code: 'PLATFORM_UNAVAILABLE',
      retryable: true,
      retryAfterMs: 120_000,
      upstreamStatus: 429,
    });
  });

  it('never retries a POST inside the client', async () => {
    platform.simulator.faults.add({ match: '/payment/', status: 503, retryAfterS: 0 });
    const error = await caught(
      platform.client.finishCheckout({ serviceId: 1001, transactionId: 'tx' }),
    );
    expect(error).toMatchObject({
      code: 'PLATFORM_UNAVAILABLE',
      retryable: true,
      upstreamStatus: 503,
    });
    expect(platform.simulator.faults.list()).toHaveLength(1);
    expect(platform.simulator.state.payments).toHaveLength(0);
  });

  it('reports a 400 on a payment call as permanent, the platform message kept for the log', async () => {
    const error = await caught(
      platform.client.finishCheckout({ serviceId: 1001, transactionId: '' }),
    );
    expect(error).toMatchObject({
      code: 'PLATFORM_REJECTED',
      retryable: false,
      upstreamStatus: 400,
    });
    expect(error.message).toBe('The platform answered 400 to POST /payment/finish-checkout.');
    expect(error.cause).toContain('Invalid body for /payment/finish-checkout.');
  });

  it('times out a hanging platform within the configured timeout', async () => {
    const client = clientFor(platform.baseUrl, { timeoutMs: 300, getRetries: 0 });
    platform.simulator.faults.add({ match: '/services', hang: true });
    const started = Date.now();
    const error = await caught(client.getService(1001));
    expect(error.code).toBe('PLATFORM_UNAVAILABLE');
    expect(error.message).toContain('timed out');
    // Its own 300 ms, not the 10 s default nor no timeout at all (a generous bound: load slows it).
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('times out a platform that answers slower than the timeout', async () => {
    const client = clientFor(platform.baseUrl, { timeoutMs: 200, getRetries: 0 });
    // An answer that comes long after the timeout, however slow the machine is.
    platform.simulator.faults.add({ match: '/payment/', latencyMs: 30_000 });
    const error = await caught(
      client.postCheckoutUrl({ serviceId: 1001, checkoutUrl: 'https://x.example/' }),
    );
    expect(error).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', retryable: true });
  });

  it('treats a reset connection as transient', async () => {
    platform.simulator.faults.add({ match: '/payment/', reset: true });
    const error = await caught(platform.client.cancelCheckout({ serviceId: 1001, reason: 'x' }));
    expect(error).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', retryable: true });
    expect(error.message).toMatch(/reset|network/);
  });

  it('treats a refused connection as transient and recovers when the platform is back', async () => {
    const { reopened } = await platform.simulator.refuseConnections(2000);
    const error = await caught(platform.client.cancelCheckout({ serviceId: 1001, reason: 'x' }));
    expect(error).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', retryable: true });
    expect(error.message).toContain('connection refused');
    await reopened;
    await expect(
      platform.client.cancelCheckout({ serviceId: 1001, reason: 'x' }),
    ).resolves.toBeUndefined();
  });

  it('reports a malformed body as a bad response', async () => {
    platform.simulator.faults.add({ match: '/services', malformed: true });
    const error = await caught(platform.client.listServices({}, { limit: 5, offset: 0 }));
    expect(error).toMatchObject({ code: 'PLATFORM_BAD_RESPONSE', retryable: false });
  });

  it('names the field when the answer has the wrong shape', async () => {
    const server = await serve((app) =>
      app.get(
        '/services/:id',
        (_req, res) => void res.json({ id: 5, status: { code: 'approved' } }),
      ),
    );
    try {
      const client = clientFor(server.url);
      const error = await caught(client.getService(5));
      expect(error.code).toBe('PLATFORM_BAD_RESPONSE');
      expect(error.details[0]?.field).toBe('status.code');
      expect(error.message).toContain('status.code');
    } finally {
      await server.close();
    }
  });

  it('stops with a clear error when the platform repeats an offset', async () => {
    const server = await serve((app) =>
      app.get('/services', (req, res) => {
        const offset = Number(req.query.offset);
        res.json({ resource: [{ id: offset + 1 }], meta: { next: offset === 0 ? 1 : 0 } });
      }),
    );
    try {
      const client = clientFor(server.url);
      const seen: number[] = [];
      const error = await caught(
        (async () => {
          for await (const item of client.iterateServices({}, { pageSize: 1 })) seen.push(item.id);
        })(),
      );
      expect(error.code).toBe('PLATFORM_PAGINATION_LOOP');
      expect(seen).toEqual([1, 2]);
    } finally {
      await server.close();
    }
  });
});

describe('pagination over 10,000 services', () => {
  it('yields every service exactly once, in order', async () => {
    const { simulator, client } = await startPlatform({ serviceCount: 10_000 });
    try {
      let count = 0;
      let previous = 0;
      let pages = 0;
      for await (const item of client.iterateServices(
        {},
        { pageSize: 250, onPage: () => (pages += 1) },
      )) {
        expect(item.id).toBe(previous === 0 ? 1001 : previous + 1);
        previous = item.id;
        count += 1;
      }
      expect(count).toBe(10_000);
      expect(pages).toBe(40);
    } finally {
      await simulator.stop();
    }
  });
});

function clientFor(baseUrl: string, options: Partial<PlatformClientOptions> = {}): PlatformClient {
  return new PlatformClient({
    ...DEMO_CREDENTIALS,
    baseUrl,
    timeoutMs: 1000,
    logger: captureLog().logger,
    getRetryBaseMs: 20,
    ...options,
  });
}

async function serve(
  define: (app: express.Express) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  define(app);
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
