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
import { setTimeout as sleep } from 'node:timers/promises';
import type { Telemetry } from 'bullmq';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { BullMQOtel } from 'bullmq-otel';
import { TRACEPARENT } from './traceparent';

/*
 * OpenTelemetry tracing (docs/operating.md, "Following one payment"), on while
 * OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is set. Incoming requests: src/tracing/traced-requests.ts;
 * outgoing HTTP: the http instrumentation, which writes `traceparent`; jobs: BullMQ's telemetry,
 * which carries the context in the job, so every attempt, in any worker, joins the trace that
 * queued it; a checkout keeps its trace's `traceparent`, so what settles it later is traced in it.
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

let started: { shutdown(): Promise<void> } | undefined;

/**
 * Starts the OpenTelemetry SDK when `env` says so, before the modules it instruments are loaded
 * (src/main/tracing-start.ts is the server's first import); a no-op otherwise, and the SDK's code
 * is then never loaded. `exporter` takes every batch instead of OTEL_TRACES_EXPORTER's (the
 * benchmark's, which drops them).
 */
export function startTracing(
  env: Env = process.env,
  options: { exporter?: SpanExporter } = {},
): boolean {
  if (started || !tracingEnabled(env)) return started !== undefined;
  // The SDK reads process.env: env's OTEL_* (from .env) join it, never overriding the process's.
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('OTEL_') && process.env[name] === undefined) process.env[name] = value;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when on
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
 * Sends the spans still buffered and stops the SDK (the shutdown's last step), within FLUSH_MS:
 * a collector that does not answer costs spans, never the shutdown's deadline.
 */
export async function stopTracing(): Promise<void> {
  const sdk = started;
  started = undefined;
  if (!sdk) return;
  const late = sleep(FLUSH_MS, undefined, { ref: false });
  await Promise.race([sdk.shutdown().catch(() => undefined), late]);
}

/** The active span's ids valid now, if any. */
function activeSpanContext() {
  const spanContext = trace.getSpanContext(context.active());
  return spanContext && isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** The active span's trace and span ids, for a log line; none outside a span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = activeSpanContext();
  return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}

/**
 * BullMQ's spans kept: each attempt at a job. Its `add` span is left out (a second span on every
 * checkout request, for no news: the job still carries the trace it was added in), and so are a
 * worker's chores (each poll, each stalled-jobs check: a trace of its own each, many a minute).
 */
const KEPT_SPANS = /^process /;

/**
 * BullMQ's telemetry, or undefined while tracing is off. A span left out changes no context, so
 * what BullMQ runs "in" it runs as it is, without entering the context it already has.
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
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a kept `traceparent` stands for; undefined for none or a malformed one. */
function contextOf(traceparent: string | undefined): Context | undefined {
  if (!traceparent || !TRACEPARENT.test(traceparent)) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, { traceparent });
  return trace.getSpan(extracted) ? extracted : undefined;
}

/**
 * Runs `fn` in a span `name` of the trace `traceparent` names (a checkout's), linked to the span
 * active now (the webhook's request, the reconciler's run), so each shows the other. Without
 * tracing, or without a kept trace, `fn` runs as it is (in the active trace, if any).
 */
export async function inTrace<T>(
  traceparent: string | undefined,
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  if (!started) return fn();
  const here = activeSpanContext();
  const options = { kind: SpanKind.INTERNAL, attributes, links: here ? [{ context: here }] : [] };
  const parent = contextOf(traceparent) ?? context.active();
  return trace.getTracer(TRACER).startActiveSpan(name, options, parent, async (span) => {
    try {
      return await fn();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
