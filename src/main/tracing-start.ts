import { readEnvironment } from '../config/env-values';
import { startTracing } from '../tracing/tracing';

/*
 * The server's first import: OpenTelemetry's SDK starts (when OTEL_EXPORTER_OTLP_ENDPOINT is set)
 * before express, axios and the rest load, so their HTTP is traced (src/tracing/tracing.ts), with
 * the environment as the configuration reads it (config/defaults.env, then .env, then the
 * process's).
 */
startTracing(readEnvironment(process.env));
