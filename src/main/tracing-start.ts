import { startTracing } from '../infra/tracing';

/*
 * The server's first import: OpenTelemetry's SDK starts (when OTEL_EXPORTER_OTLP_ENDPOINT is set)
 * before express, axios and the rest load, so their HTTP is traced (src/infra/tracing.ts).
 */
startTracing(process.env);
