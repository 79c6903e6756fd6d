import { randomBytes } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { startTracing, stopTracing } from '../../../src/tracing/tracing';

/*
 * The sampler of a process started with the standard variables (OTEL_TRACES_SAMPLER and its
 * argument, read by OpenTelemetry's SDK): what it records of a trace of its own, of a caller's
 * sampled trace and of a caller's trace not sampled.
 */
const SPANS = 2000;

/** Whether a span is recorded under a caller's trace with these flags (none: a root). */
function recorded(flags?: TraceFlags): boolean {
  const parent =
    flags === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, {
          traceId: randomBytes(16).toString('hex'),
          spanId: randomBytes(8).toString('hex'),
          traceFlags: flags,
          isRemote: true,
        });
  const span = trace.getTracer('test').startSpan('a span', {}, parent);
  const recording = span.isRecording();
  span.end();
  return recording;
}

/** What a process with `env` records: the share of roots, and under a caller's trace. */
async function samplingWith(env: Record<string, string>) {
  const before = new Set(Object.keys(process.env));
  startTracing({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    OTEL_TRACES_EXPORTER: 'none',
    ...env,
  });
  try {
    let roots = 0;
    for (let i = 0; i < SPANS; i++) roots += recorded() ? 1 : 0;
    return {
      roots: roots / SPANS,
      sampledCaller: recorded(TraceFlags.SAMPLED),
      unsampledCaller: recorded(TraceFlags.NONE),
    };
  } finally {
    await stopTracing();
    trace.disable();
    context.disable();
    propagation.disable();
    for (const name of Object.keys(process.env)) if (!before.has(name)) delete process.env[name];
  }
}

describe('sampling', () => {
  it.each([
    [{}, 1, true, false],
    [{ OTEL_TRACES_SAMPLER: 'always_off' }, 0, false, false],
    [{ OTEL_TRACES_SAMPLER: 'always_on' }, 1, true, true],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }, 0.25, null, null],
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      0.1,
      true,
      false,
    ],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '7' }, 1, true, true],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, 0, true, false],
  ])('samples as %j says: %s of roots', async (env, roots, sampledCaller, unsampledCaller) => {
    const seen = await samplingWith(env);
    expect(seen.roots).toBeCloseTo(roots, 1);
    if (sampledCaller !== null) expect(seen.sampledCaller).toBe(sampledCaller);
    if (unsampledCaller !== null) expect(seen.unsampledCaller).toBe(unsampledCaller);
  });
});
