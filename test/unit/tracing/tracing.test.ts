import { currentTraceparent, isTracing, tracingEnabled } from '../../../src/tracing/tracing';

/*
 * Tracing's switches (src/tracing/tracing.ts): on only with an OTLP endpoint, off with
 * OTEL_SDK_DISABLED. A process that never started the SDK keeps no trace
 * (test/integration/main/tracing.test.ts runs it on; sampling.test.ts, its sampler).
 */
describe('tracing', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' }, true],
  ])('is on with %j: %s', (env, on) => {
    expect(tracingEnabled(env)).toBe(on);
  });

  it('keeps no trace in a process that does not trace', () => {
    expect(isTracing()).toBe(false);
    expect(currentTraceparent()).toBeUndefined();
  });
});
