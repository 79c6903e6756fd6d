import { Router } from 'express';
import { createApp } from '../../../src/http/app';
import { jsonOrFormBody } from '../../../src/http/middleware/body-parsers';
import { allowOnly } from '../../../src/http/allow-only';
import { createMetrics } from '../../../src/infra/metrics';
import { closeRedis, createRedis, pingRedis, waitForRedis } from '../../../src/redis/redis';
import { listen } from '../../support/http-app';
import { captureLog } from '../../support/log-capture';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/** A route that reads a JSON or form body with a 1 kB limit, as the checkout route does. */
function echoRouter(): Router {
  const router = Router();
  router
    .route('/echo')
    .post(...jsonOrFormBody('1kb'), (req, res) => {
      res.json({ body: req.body as unknown });
    })
    .all(allowOnly('POST'));
  return router;
}

describe('the HTTP app', () => {
  let redis: TestRedis;
  let connection: ReturnType<typeof createRedis>;
  let server: Awaited<ReturnType<typeof listen>>;
  const log = captureLog();

  beforeAll(async () => {
    redis = await startTestRedis({ private: true });
    connection = createRedis(redis.url, 'producer', 'test');
    connection.on('error', () => {});
    expect(await waitForRedis(connection, 5000)).toBe(true);
    const app = createApp({
      logger: log.logger,
      metrics: createMetrics(),
      isReady: () => pingRedis(connection, 300),
      routers: [echoRouter()],
    });
    server = await listen(app);
  });
  afterAll(async () => {
    await server.close();
    await closeRedis(connection);
    await redis.close();
  });

  it('answers /healthz', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 200 while Redis answers, 503 when it is down, 200 again after', async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    await redis.stop();
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'unavailable', redis: false });
    await redis.start();
    const deadline = Date.now() + 5000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await fetch(`${server.url}/readyz`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });

  it('exposes Prometheus metrics with the request histogram by route and status', async () => {
    await fetch(`${server.url}/healthz`);
    await fetch(`${server.url}/nope`);
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/healthz",status_code="200"\} \d+/,
    );
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="unmatched",status_code="404"\} \d+/,
    );
  });

  it('answers an unknown route with a JSON 404', async () => {
    const res = await fetch(`${server.url}/nowhere`, { method: 'POST' });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No route for POST /nowhere.',
      details: [],
    });
  });

  it('answers malformed JSON with a JSON 400 and logs it', async () => {
    const res = await fetch(`${server.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"service_id": ',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('MALFORMED_JSON');
    expect(
      log.entries().some((e) => e.message === 'request failed' && e.code === 'MALFORMED_JSON'),
    ).toBe(true);
  });

  it('answers a body over the limit with a JSON 413', async () => {
    const res = await fetch(`${server.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(5000) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('answers an unsupported charset with a JSON 415', async () => {
    const res = await fetch(`${server.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=klingon' },
      body: '{}',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('reuses a sane x-request-id, replaces an insane one, and stamps it on the log lines', async () => {
    const reused = await fetch(`${server.url}/missing`, { headers: { 'x-request-id': 'abc-123' } });
    expect(reused.headers.get('x-request-id')).toBe('abc-123');
    expect(((await reused.json()) as { error: { request_id: string } }).error.request_id).toBe(
      'abc-123',
    );
    expect(
      log
        .entries()
        .filter((e) => e.requestId === 'abc-123')
        .map((e) => e.message),
    ).toEqual(expect.arrayContaining(['request failed', 'request handled']));
    const replaced = await fetch(`${server.url}/healthz`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads no body on a route that takes none', async () => {
    const res = await fetch(`${server.url}/nowhere`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"not json',
    });
    expect(res.status).toBe(404);
  });

  it.each([
    ['GET', '/echo', 'POST'],
    ['DELETE', '/echo', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['PUT', '/metrics', 'GET, HEAD'],
    ['PATCH', '/readyz', 'GET, HEAD'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const res = await fetch(`${server.url}${path}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(await res.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it('answers OPTIONS on a known path with 204 and Allow', async () => {
    const res = await fetch(`${server.url}/echo`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('sends helmet security headers', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});
