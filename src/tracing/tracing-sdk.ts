import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import {
  ConsoleSpanExporter,
  NoopSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { scrubbingExporter } from './span-scrubbing';

/*
 * OpenTelemetry's NodeSDK (loaded by src/tracing/tracing.ts only when tracing is on), which reads
 * the standard variables itself: OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*, the span limits,
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES; each OTLP exporter its OTEL_EXPORTER_OTLP_*. Ours
 * is which exporter OTEL_TRACES_EXPORTER and the OTLP protocol name: the SDK picks it only
 * inside the span processors it builds, which leaves no place to scrub each span before export.
 */

type Env = Record<string, string | undefined>;

const OTLP_EXPORTERS = new Map<string, new () => SpanExporter>([
  ['grpc', GrpcExporter],
  ['http/json', JsonExporter],
  ['http/protobuf', ProtobufExporter],
]);

/**
 * Where the spans go, each scrubbed (src/tracing/span-scrubbing.ts): to `exporter` when given
 * (the benchmark's), else as OTEL_TRACES_EXPORTER says: `otlp` (the default) in batches,
 * `console` one by one, `none` nowhere (spans are still made, sampled and propagated).
 */
function exportOf(env: Env, exporter?: SpanExporter): Partial<NodeSDKConfiguration> {
  const scrubbed = (to: SpanExporter) => ({ traceExporter: scrubbingExporter(to) });
  if (exporter) return scrubbed(exporter);
  const names = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim());
  if (names.includes('none')) return { spanProcessors: [new NoopSpanProcessor()] };
  if (names.includes('console')) {
    const console = scrubbingExporter(new ConsoleSpanExporter());
    return { spanProcessors: [new SimpleSpanProcessor({ exporter: console })] };
  }
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  return scrubbed(new (OTLP_EXPORTERS.get(protocol?.trim() ?? '') ?? ProtobufExporter)());
}

/**
 * Starts the SDK: traces only (metrics stay Prometheus's, logs stdout's), the W3C trace context
 * alone (a caller's baggage is not carried on to the platform, the providers and the ERP), the
 * http instrumentation for outgoing requests (the server's own are `tracedRequests`').
 */
export function startTraceSdk(
  env: Env,
  defaultName: string,
  exporter?: SpanExporter,
): { shutdown(): Promise<void> } {
  const sdk = new NodeSDK({
    // Under OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, which the SDK's detectors read.
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': defaultName })),
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [new HttpInstrumentation({ disableIncomingRequestInstrumentation: true })],
    metricReaders: [],
    logRecordProcessors: [],
    ...exportOf(env, exporter),
  });
  sdk.start();
  return sdk;
}
