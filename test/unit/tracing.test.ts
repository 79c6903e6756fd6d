import { samplerOf } from '../../src/infra/tracing-sdk';
import { currentTraceparent, isTracing, tracingEnabled } from '../../src/infra/tracing';

/*
 * Tracing's switches (src/infra/tracing.ts): on only with an OTLP endpoint, off with
 * OTEL_SDK_DISABLED; the sampler the standard variables name. A process that never started the
 * SDK keeps no trace (test/integration/main/tracing.test.ts runs it on).
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

  it.each([
    [{}, 'ParentBased{root=AlwaysOnSampler'],
    [{ OTEL_TRACES_SAMPLER: 'always_off' }, 'AlwaysOffSampler'],
    [{ OTEL_TRACES_SAMPLER: 'always_on' }, 'AlwaysOnSampler'],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' },
      'TraceIdRatioBased{0.25}',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      'ParentBased{root=TraceIdRatioBased{0.1}',
    ],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '7' }, 'TraceIdRatioBased{1}'],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, 'ParentBased{root=AlwaysOffSampler'],
  ])('samples as %j says', (env, described) => {
    expect(samplerOf(env).toString()).toContain(described);
  });
});
