import { randomBytes } from 'node:crypto';
import { freePort } from '../../../src/demo/free-port';
import { eventually, ROUTE_TOKEN, WAIT_DEADLINE_MS } from '../../support/harness';
import { OtlpCollector, type CollectedSpan } from '../../support/otlp-collector';
import { redisAndSimulator } from '../../support/platform';
import { connectorStarted, spawnConnector, type Spawned } from '../../support/spawn-ts';

/*
 * Traces follow no stranger (CONTRACT "Connect and a provider's own endpoints, safe by
 * construction"): a request joins the trace its `traceparent` names only once authenticated (the
 * checkout route with its token, the admin API with ADMIN_TOKEN). Any other, refused or unknown,
 * starts a trace of its own, linked to the caller's and sampled by the connector's sampler: under
 * `parentbased_always_off`, a stranger's sampled flag makes no span.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const SPAN_KIND_SERVER = 2;

/** A caller's sampled trace context, fresh. */
function callerTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

type Call = { name: string; status: number; path: string; init: RequestInit };

/** The requests of a stranger: the admin API and the route with wrong credentials, no route. */
const STRANGERS: Call[] = [
  {
    name: 'the admin API, a wrong token',
    status: 401,
    path: '/admin/api/shops',
    init: { headers: { authorization: 'Bearer not-the-admin-token' } },
  },
  {
    name: 'the checkout route, a wrong token',
    status: 401,
    path: '/checkout',
    init: {
      method: 'POST',
      headers: { authorization: 'Bearer not-the-route-token', 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 1001 }),
    },
  },
  { name: 'no route', status: 404, path: '/nowhere', init: {} },
];

/** The platform and the ERP vendor's systems, with their credentials. */
const AUTHENTICATED: Call[] = [
  {
    name: 'the checkout route (the front door)',
    status: 202,
    path: '/checkout',
    init: {
      method: 'POST',
      headers: { authorization: `Bearer ${ROUTE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 1002 }),
    },
  },
  {
    name: 'the checkout route (a form, through Express)',
    status: 202,
    path: `/checkout?token=${ROUTE_TOKEN}`,
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'service_id=1003',
    },
  },
  {
    name: 'the admin API',
    status: 200,
    path: '/admin/api/shops',
    init: { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
  },
];

describe('a request joins its caller’s trace only once authenticated', () => {
  const shared = redisAndSimulator();
  const collector = new OtlpCollector();
  const processes: Spawned[] = [];
  const urls: Record<'parentbased_always_on' | 'parentbased_always_off', string> = {
    parentbased_always_on: '',
    parentbased_always_off: '',
  };

  beforeAll(async () => {
    await collector.start();
    for (const sampler of Object.keys(urls) as Array<keyof typeof urls>) {
      const port = await freePort();
      const proc = spawnConnector(shared.redis.url, shared.simulator.url, {
        ROLE: 'api',
        PORT: String(port),
        QUEUE_PREFIX: `tj${randomBytes(3).toString('hex')}`,
        ADMIN_TOKEN,
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_TRACES_SAMPLER: sampler,
        OTEL_RESOURCE_ATTRIBUTES: `connector.sampler=${sampler}`,
      });
      processes.push(proc);
      urls[sampler] = `http://127.0.0.1:${port}`;
    }
    await Promise.all(processes.map((proc) => connectorStarted(proc)));
  }, 60_000);
  afterAll(async () => {
    for (const proc of processes) proc.child.kill('SIGKILL');
    await Promise.all(processes.map((proc) => proc.exited));
    await collector.stop();
  });

  /** Sends `call` to `base` with a caller's sampled traceparent; the caller's trace. */
  const send = async (base: string, call: Call) => {
    const caller = callerTrace();
    const headers = new Headers(call.init.headers);
    headers.set('traceparent', caller.traceparent);
    const response = await fetch(`${base}${call.path}`, { ...call.init, headers });
    await response.arrayBuffer();
    expect([call.name, response.status]).toEqual([call.name, call.status]);
    return caller;
  };

  /** The server span of the request sent in `caller`'s trace or linked to it, once exported. */
  const serverSpanOf = (caller: { traceId: string }, what: string) =>
    eventually(
      () =>
        collector.spans.find(
          (span: CollectedSpan) =>
            span.kind === SPAN_KIND_SERVER &&
            (span.traceId === caller.traceId ||
              span.links.some((link) => link.traceId === caller.traceId)),
        ),
      WAIT_DEADLINE_MS,
      what,
    );

  it("starts a trace of its own, linked to the caller's, for a refused or unknown request; joins it once authenticated", async () => {
    const base = urls.parentbased_always_on;
    for (const call of STRANGERS) {
      const caller = await send(base, call);
      const span = await serverSpanOf(caller, call.name);
      expect([call.name, span.traceId === caller.traceId]).toEqual([call.name, false]);
      expect(span.parentSpanId).toBeUndefined();
      expect(span.links).toEqual([{ traceId: caller.traceId, spanId: caller.spanId }]);
    }
    for (const call of AUTHENTICATED) {
      const caller = await send(base, call);
      const span = await serverSpanOf(caller, call.name);
      expect([call.name, span.traceId, span.parentSpanId]).toEqual([
        call.name,
        caller.traceId,
        caller.spanId,
      ]);
      expect(span.links).toEqual([]);
    }
  });

  it("makes no span for a stranger's sampled traceparent under parentbased_always_off; an authenticated request's is sampled", async () => {
    const base = urls.parentbased_always_off;
    const strangers: Array<{ traceId: string }> = [];
    for (const call of STRANGERS) strangers.push(await send(base, call));
    // Spans are exported in the order they end: once the later requests' are in, the strangers'
    // would have been too.
    for (const call of AUTHENTICATED) {
      const caller = await send(base, call);
      const span = await serverSpanOf(caller, call.name);
      expect([call.name, span.traceId, span.parentSpanId]).toEqual([
        call.name,
        caller.traceId,
        caller.spanId,
      ]);
    }
    const followed = collector.spans
      .filter(
        (span) =>
          span.resource['connector.sampler'] === 'parentbased_always_off' &&
          strangers.some(
            (caller) =>
              span.traceId === caller.traceId ||
              span.links.some((link) => link.traceId === caller.traceId),
          ),
      )
      .map((span) => `${span.name} ${String(span.attributes['http.response.status_code'])}`);
    expect(followed).toEqual([]);
  });
});
