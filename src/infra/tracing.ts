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
} from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { BullMQOtel } from 'bullmq-otel';
import { TRACEPARENT } from './traceparent';

/*
 * OpenTelemetry tracing (docs/operating.md, "Following one payment"): on while
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, with the standard
 * OTEL_* variables read by the SDK itself; OTEL_SERVICE_NAME defaults to checkout-connector.
 * Incoming requests are traced by src/infra/traced-requests.ts (joining a caller's trace only once
 * authenticated); outgoing HTTP (the platform, the providers, the ERP) by the http
 * instrumentation, which puts `traceparent` on every outgoing request; jobs by BullMQ's telemetry,
 * which carries the context in the job, so a job's attempts, in any worker process, join the trace
 * that queued it; a checkout keeps its trace's context (its record's `trace`), so what settles it
 * later (a webhook, the reconciler) is traced in the checkout's trace, linked to the request.
 */

/** The service's name when OTEL_SERVICE_NAME (or `service.name` in its attributes) says none. */
export const DEFAULT_SERVICE_NAME = 'checkout-connector';
/** The connector's tracer (its spans' instrumentation scope). */
export const TRACER = 'checkout-connector';

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
