import { context, propagation, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { carriedTrace, enterCarryingTrace, runCarryingTrace } from './log-context';
import { scrubbingExporter } from './span-scrubbing';

/*
 * The OpenTelemetry SDK for traces, put together from its parts (loaded by src/infra/tracing.ts
 * only when tracing is on), reading the standard variables as the specification names them:
 * OTEL_TRACES_EXPORTER (otlp, console, none), OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL
 * (http/protobuf by default, http/json, grpc) and every
 * OTEL_EXPORTER_OTLP_* the exporter reads itself (endpoint, headers, timeout, compression,
 * certificates), OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*, OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES. Not @opentelemetry/sdk-node: it loads every exporter of every signal
 * (logs, metrics, gRPC, Zipkin, Prometheus), and under the image's 192 MB old space that weight
 * alone cost the checkout route a sixth of its throughput (bench:tracing).
 */

type Env = Record<string, string | undefined>;

/**
 * OpenTelemetry's context, carried in the log context's AsyncLocalStorage (src/infra/log-context.ts)
 * rather than one of its own: a second AsyncLocalStorage is paid on every promise the process
 * creates. Binding functions and event emitters is the stock manager's, through `with`.
 */
export class CarriedContextManager extends AsyncLocalStorageContextManager {
  override active(): Context {
    return (carriedTrace() as Context | undefined) ?? ROOT_CONTEXT;
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const call = thisArg === undefined || thisArg === null ? fn : (fn.bind(thisArg) as F);
    return runCarryingTrace(ctx, call, ...args);
  }

  override attach(ctx: Context): { dispose(): void } {
    const restore = enterCarryingTrace(ctx);
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        restore();
      },
    };
  }
}

/** The exporter of the protocol asked (loaded alone: a gRPC client only for grpc). */
function exporterOf(env: Env): SpanExporter {
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  /* eslint-disable @typescript-eslint/no-require-imports -- one exporter loaded, the one asked */
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  if (protocol === 'grpc') {
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc');
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new OTLPTraceExporter();
}

/** OTEL_TRACES_SAMPLER and its argument, as the specification defines them. */
export function samplerOf(env: Env): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const fraction = Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
  switch ((env.OTEL_TRACES_SAMPLER ?? '').trim()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(fraction);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(fraction) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** OTEL_BSP_*: the batch span processor's queue, batch, delay and export timeout. */
function batchOptions(env: Env) {
  const number = (name: string) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const options = {
    maxQueueSize: number('OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: number('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
    scheduledDelayMillis: number('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: number('OTEL_BSP_EXPORT_TIMEOUT'),
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/**
 * OTEL_TRACES_EXPORTER: `otlp` (the default), `console` (each span on stdout, for a look), or
 * `none`: spans are made, sampled and propagated, and dropped at their end (no exporter). An
 * exporter given in code takes the batches instead (the benchmark's). Whichever it is, it gets
 * each span scrubbed (src/infra/span-scrubbing.ts).
 */
function spanProcessorsOf(env: Env, exporter?: SpanExporter): SpanProcessor[] {
  if (exporter)
    return [
      new BatchSpanProcessor({ exporter: scrubbingExporter(exporter), ...batchOptions(env) }),
    ];
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim());
  if (exporters.includes('none')) return [];
  if (exporters.includes('console'))
    return [new SimpleSpanProcessor({ exporter: scrubbingExporter(new ConsoleSpanExporter()) })];
  const otlp = scrubbingExporter(exporterOf(env));
  return [new BatchSpanProcessor({ exporter: otlp, ...batchOptions(env) })];
}

/**
 * Registers a tracer provider, the W3C propagators, the context manager (carried with the logs') and the
 * http instrumentation for outgoing requests (the server's own are `tracedRequests`'). Returns
 * what flushes and stops it.
 */
export function startTraceSdk(
  env: Env,
  defaultName: string,
  exporter?: SpanExporter,
): { shutdown(): Promise<void> } {
  context.setGlobalContextManager(new CarriedContextManager().enable());
  // Trace context alone: baggage from a caller (a webhook, a customer's page) is not carried on
  // to the platform, the providers and the ERP.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // The default name first: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': defaultName }))
    .merge(detectResources({ detectors: [hostDetector, processDetector, envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(env),
    spanProcessors: spanProcessorsOf(env, exporter),
  });
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new HttpInstrumentation({ disableIncomingRequestInstrumentation: true })],
  });
  return { shutdown: () => provider.shutdown() };
}
