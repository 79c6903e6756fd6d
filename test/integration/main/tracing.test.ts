import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { freePort } from '../../../src/demo/free-port';
import { FakeErp } from '../../support/fake-erp';
import { eventually, ROUTE_TOKEN, WAIT_DEADLINE_MS } from '../../support/harness';
import { OtlpCollector, type CollectedSpan } from '../../support/otlp-collector';
import { redisAndSimulator } from '../../support/platform';
import { connectorStarted, spawnConnector, type Spawned } from '../../support/spawn-ts';

/*
 * OpenTelemetry (docs/operating.md, "Following one payment"): the api and the worker as two
 * processes, exporting OTLP/JSON to a loopback collector. One checkout is one trace: the route's
 * request, its jobs in the worker, the platform's calls (each with `traceparent`), the page that
 * settled it (linked), the finish's delivery and the ERP's; every log line of it carries the
 * trace id. A worker killed in the middle of the finish: the next worker's attempt joins the same
 * trace. A public request (a page, a webhook) sent a `traceparent` links to it instead of joining.
 */
const SECRET = `erp-${randomBytes(12).toString('hex')}`;
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CONSUMER = 5;

describe('tracing across the api and the worker', () => {
  const shared = redisAndSimulator();
  const collector = new OtlpCollector();
  const erp = new FakeErp(SECRET);
  const prefix = `tr${randomBytes(3).toString('hex')}`;
  const processes: Spawned[] = [];
  let apiUrl = '';
  /** The worker running now (tests run in any order: after the kill test, worker B). */
  let worker: { name: string; proc: Spawned };

  /** A connector process of `role`, tracing to the collector under `name`. */
  function start(role: 'api' | 'worker', name: string, env: Record<string, string> = {}) {
    const proc = spawnConnector(shared.redis.url, shared.simulator.url, {
      ROLE: role,
      QUEUE_PREFIX: prefix,
      PUBLIC_URL: apiUrl,
      ERP_SINK: 'webhook',
      ERP_WEBHOOK_URL: erp.url,
      ERP_WEBHOOK_SECRET: SECRET,
      NOTIFY_BACKOFF_MS: '200',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Spans leave each process within 100 ms, not the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_RESOURCE_ATTRIBUTES: `connector.process=${name}`,
      ...env,
    });
    processes.push(proc);
    return proc;
  }

  beforeAll(async () => {
    await collector.start();
    await erp.start();
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    const api = start('api', 'api', { PORT: String(port) });
    await connectorStarted(api);
    worker = { name: 'worker-a', proc: start('worker', 'worker-a', { JOB_LOCK_MS: '5000' }) };
    await connectorStarted(worker.proc);
    shared.simulator.connectTo({ checkoutUrl: `${apiUrl}/checkout`, token: ROUTE_TOKEN });
  }, 60_000);
  afterAll(async () => {
    shared.simulator.faults.clear();
    for (const proc of processes) proc.child.kill('SIGKILL');
    await Promise.all(processes.map((proc) => proc.exited));
    await erp.stop();
    await collector.stop();
  });

  /** A POST whose request target is in absolute form (`POST http://host/path`), as a proxy sends. */
  const absoluteFormPost = (target: string, traceparent: string) =>
    new Promise<number>((resolve, reject) => {
      const { port } = new URL(apiUrl);
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: target,
          headers: { traceparent, 'content-type': 'application/json', 'content-length': '2' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end('{}');
    });

  /** The checkout's trace id: the one its spans name it in. */
  const traceOf = (checkoutId: string) =>
    eventually(
      () => collector.withAttribute('connector.checkout_id', checkoutId)[0]?.traceId,
      WAIT_DEADLINE_MS,
      "the checkout's spans",
    );

  /** The spans of `trace` that satisfy `test`, once there is one. */
  const spansOf = (traceId: string, what: string, test: (span: CollectedSpan) => boolean) =>
    eventually(
      () => {
        const found = collector.trace(traceId).filter(test);
        return found.length > 0 ? found : undefined;
      },
      WAIT_DEADLINE_MS,
      what,
    );

  const of = (process: string) => (span: CollectedSpan) =>
    span.resource['connector.process'] === process;

  it('is one trace from the route to the finish and the ERP, across both processes', async () => {
    const { simulator } = shared;
    const answer = await simulator.requestCheckout(1001);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const url = await eventually(() => simulator.checkoutUrlFor(1001));
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    const finish = await eventually(
      () => simulator.accepted('finish-checkout').find((call) => call.serviceId === 1001),
      WAIT_DEADLINE_MS,
      'the finish',
    );
    const traceId = await traceOf(checkoutId);

    // The route's request, in the api: the trace's root.
    const [route] = await spansOf(
      traceId,
      'the route',
      (s) => of('api')(s) && s.kind === SPAN_KIND_SERVER,
    );
    expect(route!.parentSpanId).toBeUndefined();
    expect(route!.service).toBe('checkout-connector');
    // Its produce job, queued by the api and run by the worker: the job carried the route's
    // context in its data, so the attempt's span is the route span's child.
    const [produce] = await spansOf(
      traceId,
      'the produce job run',
      (s) =>
        of(worker.name)(s) && s.name === 'process checkout' && s.parentSpanId === route!.spanId,
    );
    expect(produce!.kind).toBe(SPAN_KIND_CONSUMER);
    // The platform's calls carry the trace: the service read, the URL, the finish.
    const url1 = simulator.accepted('checkout-url').find((call) => call.serviceId === 1001);
    expect(url1?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(finish.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    // The page that settled it: in the checkout's trace, linked to its own request's span.
    const [learn] = await spansOf(traceId, 'the settling', (s) => s.name === 'checkout learn');
    expect(learn!.attributes).toMatchObject({
      'connector.checkout_id': checkoutId,
      'connector.service_id': 1001,
    });
    const link = learn!.links[0]!;
    expect(link.traceId).not.toBe(traceId);
    const page = await eventually(() =>
      collector.trace(link.traceId).find((s) => s.spanId === link.spanId),
    );
    expect(page.kind).toBe(SPAN_KIND_SERVER);
    // The finish's delivery, and the ERP's (the paid service, the payment record), in the worker.
    await spansOf(
      traceId,
      'the finish delivered',
      (s) => of(worker.name)(s) && s.name === 'process notifications',
    );
    await spansOf(
      traceId,
      'the ERP deliveries',
      (s) => of(worker.name)(s) && s.name === 'process sync',
    );
    const record = await eventually(
      () => erp.payments(checkoutId, 'paid')[0],
      WAIT_DEADLINE_MS,
      'the record',
    );
    expect(record.traceparent).toMatch(new RegExp(`^00-${traceId}-`));

    // Every log line of the worker about the checkout carries the trace.
    const lines = worker.proc
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.checkoutId === checkoutId);
    expect(lines.map((line) => line.message)).toContain('platform notified');
    expect(lines.every((line) => line.trace_id === traceId)).toBe(true);
    expect(collector.refused).toEqual([]);
  });

  it("starts a trace of its own for a customer's page or a provider's webhook, linked to the traceparent they sent; the platform's route joins its", async () => {
    // Anyone on the internet can send a traceparent, sampled: a public request does not join
    // (or make sampled) a trace it names, it links to it. The platform's route joins it.
    const foreignTrace = randomBytes(16).toString('hex');
    const foreignSpan = randomBytes(8).toString('hex');
    const traceparent = `00-${foreignTrace}-${foreignSpan}-01`;
    await fetch(`${apiUrl}/return/sandbox?checkout_id=chk_000000000000000000000000`, {
      headers: { traceparent },
      redirect: 'manual',
    });
    await fetch(`${apiUrl}/webhooks/sandbox`, {
      method: 'POST',
      headers: { traceparent, 'content-type': 'application/json' },
      body: '{}',
    });
    // The same webhook, its target in absolute form (Express routes it by its path too).
    await absoluteFormPost(`http://connector.example/webhooks/sandbox`, traceparent);
    const answer = await fetch(`${apiUrl}/checkout`, {
      method: 'POST',
      headers: {
        traceparent,
        authorization: `Bearer ${ROUTE_TOKEN}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ service_id: 1003 }),
    });
    expect(answer.status).toBe(202);

    const linked = await eventually(
      () => {
        const spans = collector.spans.filter((s) =>
          s.links.some((link) => link.traceId === foreignTrace),
        );
        return spans.length >= 3 ? spans : undefined;
      },
      WAIT_DEADLINE_MS,
      'the public requests, linked',
    );
    expect(linked).toHaveLength(3);
    for (const span of linked) {
      expect(span.kind).toBe(SPAN_KIND_SERVER);
      expect(span.traceId).not.toBe(foreignTrace);
      expect(span.parentSpanId).toBeUndefined();
      expect(span.links).toEqual([{ traceId: foreignTrace, spanId: foreignSpan }]);
    }
    const [route] = await spansOf(
      foreignTrace,
      "the platform's route, in the platform's trace",
      (s) => of('api')(s) && s.kind === SPAN_KIND_SERVER,
    );
    expect(route!.parentSpanId).toBe(foreignSpan);
    expect(route!.name).toBe('POST /checkout');
    // The route is the only request in the foreign trace.
    const requests = collector
      .trace(foreignTrace)
      .filter((s) => of('api')(s) && s.kind === SPAN_KIND_SERVER);
    expect(requests.map((s) => s.spanId)).toEqual([route!.spanId]);
  });

  it("joins the checkout's trace from the next worker when one was killed in the middle of the finish", async () => {
    const { simulator } = shared;
    const answer = await simulator.requestCheckout(1002);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const url = await eventually(() => simulator.checkoutUrlFor(1002));
    simulator.faults.add({ match: '/payment/finish-checkout', hang: true, times: 1 });
    const paidAt = Date.now();
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    await eventually(() =>
      simulator.arrivals.find((a) => a.path === '/payment/finish-checkout' && a.at >= paidAt),
    );
    // Worker A dies holding the finish; worker B takes it up once its lock lapses.
    worker.proc.child.kill('SIGKILL');
    await worker.proc.exited;
    worker = { name: 'worker-b', proc: start('worker', 'worker-b', { JOB_LOCK_MS: '5000' }) };
    await connectorStarted(worker.proc);
    const finish = await eventually(
      () => simulator.accepted('finish-checkout').find((call) => call.serviceId === 1002),
      30_000,
      'the finish, from worker B',
    );
    const traceId = await traceOf(checkoutId);
    expect(finish.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
    await spansOf(
      traceId,
      "worker B's attempt",
      (s) => of('worker-b')(s) && s.name === 'process notifications',
    );
  }, 60_000);
});
