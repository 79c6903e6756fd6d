import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Telemetry } from 'bullmq';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { BullMQOtel } from 'bullmq-otel';
import { TRACEPARENT } from './traceparent';

/*
 * OpenTelemetry tracing (docs/operating.md, "Following one payment"): on while
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, with the standard
 * OTEL_* variables read by the SDK itself; OTEL_SERVICE_NAME defaults to checkout-connector.
 * Incoming and outgoing HTTP (the platform, the providers, the ERP) are traced by the http
 * instrumentation, which puts `traceparent` on every outgoing request; jobs by BullMQ's telemetry,
 * which carries the context in the job, so a job's attempts, in any worker process, join the trace
 * that queued it; a checkout keeps its trace's context (its record's `trace`), so what settles it
 * later (a webhook, the reconciler) is traced in the checkout's trace, linked to the request.
 */

/** The service's name when OTEL_SERVICE_NAME (or `service.name` in its attributes) says none. */
export const DEFAULT_SERVICE_NAME = 'checkout-connector';
const TRACER = 'checkout-connector';

/** Requests not traced: the orchestrator's and Prometheus's, many a minute, telling nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

type Env = Record<string, string | undefined>;

/** Whether the environment turns tracing on. */
export function tracingEnabled(env: Env): boolean {
  const endpoint =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

interface Started {
  shutdown(): Promise<void>;
}
let started: Started | undefined;

/**
 * Starts the OpenTelemetry SDK when the environment says so, before the modules it instruments
 * are loaded (src/main/tracing-start.ts is the server's first import); a no-op otherwise, and
 * the SDK's code is then never loaded. Traces only: metrics stay Prometheus's, logs stdout's.
 * `exporter`, when given, takes every batch instead of the one OTEL_TRACES_EXPORTER names (the
 * benchmark's exporter that drops everything).
 */
export function startTracing(
  env: Env = process.env,
  options: { exporter?: SpanExporter } = {},
): boolean {
  if (started || !tracingEnabled(env)) return started !== undefined;
  // Loaded only when on: a process without tracing reads none of the SDK at start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
  const { startTraceSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  started = startTraceSdk(env, DEFAULT_SERVICE_NAME, options.exporter);
  return true;
}

/** Whether this process traces (`startTracing` started the SDK). */
export function isTracing(): boolean {
  return started !== undefined;
}

/** How long the shutdown waits for the last spans to reach the collector. */
const FLUSH_MS = 3000;

/**
 * Sends the spans still buffered and stops the SDK (the shutdown's last step), waiting at most
 * FLUSH_MS: a collector that does not answer costs spans, never the shutdown's deadline. A no-op
 * when off.
 */
export async function stopTracing(): Promise<void> {
  const sdk = started;
  started = undefined;
  if (!sdk) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FLUSH_MS);
    timer.unref();
  });
  await Promise.race([sdk.shutdown().catch(() => undefined), late]);
  clearTimeout(timer);
}

/** Where a request's route is kept for its span, when Express does not route it (the front door). */
const ROUTE = Symbol('connector.route');

type RoutedRequest = IncomingMessage & {
  [ROUTE]?: string;
  route?: { path?: unknown };
  baseUrl?: string;
};

/**
 * The route pattern Express matched for a request (`req.route` under `req.baseUrl`), never its raw
 * path (a query or a connect link may hold a token); undefined where Express matched none.
 */
export function matchedRoute(req: {
  route?: { path?: unknown };
  baseUrl?: string;
}): string | undefined {
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl ?? ''}${pattern}` : undefined;
}

/** A request's route: as Express matched it, or as named for its span. */
function routeOf(req: RoutedRequest): string | undefined {
  return matchedRoute(req) ?? req[ROUTE];
}

/** Names the request's route for its span, for a handler Express does not route. */
export function nameRequestRoute(req: IncomingMessage, route: string): void {
  if (started) (req as RoutedRequest)[ROUTE] = route;
}

/**
 * The path of a request's URL, without its query; of an absolute-form target
 * (`POST http://host/webhooks/...`, which Express routes by its path too), its path.
 */
function pathOf(url = ''): string {
  if (!url.startsWith('/')) {
    try {
      return new URL(url).pathname;
    } catch {
      return url;
    }
  }
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Whether `path` is `prefix` or under it. */
const under = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path[prefix.length] === '/');

/**
 * Where a request's span belongs: the trace its `traceparent` names (the platform's, the ERP's),
 * or, on a public path (a customer's page, a provider's webhook: anyone can send one, sampled), a
 * trace of its own linked to the one named, as OpenTelemetry's HTTP conventions advise for a
 * public endpoint. Most requests carry none: nothing to read.
 */
function parentOf(
  req: IncomingMessage,
  path: string,
  publicPaths: readonly string[],
): { parent: Context; links?: Link[] } {
  if (req.headers.traceparent === undefined) return { parent: ROOT_CONTEXT };
  const named = propagation.extract(ROOT_CONTEXT, req.headers);
  if (!publicPaths.some((prefix) => under(path, prefix))) return { parent: named };
  const remote = trace.getSpanContext(named);
  return {
    parent: ROOT_CONTEXT,
    ...(remote && isSpanContextValid(remote) ? { links: [{ context: remote }] } : {}),
  };
}

/**
 * The server's request listener, each request a span of kind SERVER (see `parentOf` for its
 * trace; `publicPaths` are the prefixes of the public ones), active while it is handled, named by
 * its method and route pattern once answered (never the raw path: a connect link's token is in
 * it). The probes and the scrape are not traced. As it is while tracing is off.
 */
export function tracedRequests(
  listener: RequestListener,
  publicPaths: readonly string[] = [],
): RequestListener {
  if (!started) return listener;
  const tracer = trace.getTracer(TRACER);
  return (req, res) => {
    const path = pathOf(req.url);
    if (UNTRACED_PATHS.has(path)) {
      listener(req, res);
      return;
    }
    const method = req.method ?? 'HTTP';
    const { parent, links } = parentOf(req, path, publicPaths);
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method },
        ...(links ? { links } : {}),
      },
      parent,
    );
    // 'close' comes once, answered or not.
    res.on('close', () => {
      const route = routeOf(req);
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), listener, undefined, req, res);
  };
}

/** The active span's trace and span ids, for a log line; none outside a span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  const spanContext = span?.spanContext();
  return spanContext && isSpanContextValid(spanContext)
    ? { trace_id: spanContext.traceId, span_id: spanContext.spanId }
    : {};
}

/**
 * BullMQ's own spans kept: each attempt at processing a job. Its `add` span is left out (the job
 * still carries the trace it was added in, so the attempt is that span's child): on the checkout
 * route it was a second span on every request, for no news (bench:tracing).
 */
const KEPT_SPANS = /^process /;

/**
 * BullMQ's telemetry for the connector's queues and workers, or undefined while tracing is off.
 * Its span of each attempt at a job is kept; those of a worker's own chores
 * (every poll for the next job, the stalled-jobs check) would each be a trace of its own, many a
 * minute, and are left out. A span left out changes no context, so what BullMQ runs "in" it runs
 * as it is, without entering the context it already has (on the checkout route, every job added).
 */
export function queueTelemetry(): Telemetry | undefined {
  if (!started) return undefined;
  const otel = new BullMQOtel(TRACER);
  const manager = otel.contextManager;
  return {
    contextManager: {
      active: () => manager.active(),
      getMetadata: (ctx: Context) => manager.getMetadata(ctx),
      fromMetadata: (active: Context, metadata: string) => manager.fromMetadata(active, metadata),
      with: <A extends (...args: unknown[]) => unknown>(ctx: Context, fn: A) =>
        ctx === context.active() ? fn() : manager.with(ctx, fn),
    },
    tracer: {
      startSpan: (name, options, ctx) =>
        KEPT_SPANS.test(name) ? otel.tracer.startSpan(name, options, ctx) : UNKEPT_SPAN,
    },
  } as Telemetry;
}

/** A span of BullMQ's telemetry that records nothing. */
const UNKEPT_SPAN = {
  setSpanOnContext: (ctx: unknown) => ctx,
  setAttribute: () => undefined,
  setAttributes: () => undefined,
  addEvent: () => undefined,
  recordException: () => undefined,
  end: () => undefined,
};

/** The active trace context as a W3C `traceparent`, to keep with a checkout; none when off. */
export function currentTraceparent(): string | undefined {
  if (!started) return undefined;
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  // W3C Trace Context, version 00: what the propagator would write, without its carrier.
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The context a kept `traceparent` stands for; undefined for none or a malformed one. */
function contextOf(traceparent: string | undefined): Context | undefined {
  if (!traceparent || !TRACEPARENT.test(traceparent)) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, { traceparent });
  return trace.getSpan(extracted) ? extracted : undefined;
}

/**
 * Runs `fn` in a span `name` of the trace `traceparent` names (a checkout's), linked to the span
 * active now (the webhook's request, the reconciler's run): in a tracing tool, the checkout's
 * trace shows what settled it, and the request shows which checkout it settled. Without tracing,
 * or without a kept trace, `fn` runs as it is (in the active trace, when there is one).
 */
export async function inTrace<T>(
  traceparent: string | undefined,
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  if (!started) return fn();
  const parent = contextOf(traceparent);
  const here = trace.getSpan(context.active())?.spanContext();
  const links = here && isSpanContextValid(here) ? [{ context: here }] : [];
  const tracer = trace.getTracer(TRACER);
  return tracer.startActiveSpan(
    name,
    { kind: SpanKind.INTERNAL, attributes, links },
    parent ?? context.active(),
    async (span) => {
      try {
        return await fn();
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
