import { readEnvironment } from '../config/env-values';
import { startTracing } from '../infra/tracing';

/*
 * The server's first import: OpenTelemetry's SDK starts (when OTEL_EXPORTER_OTLP_ENDPOINT is set)
 * before express, axios and the rest load, so their HTTP is traced (src/infra/tracing.ts). The
 * environment is read as the configuration reads it (config/defaults.env, then .env, then the
 * process's); the exporter reads its own OTEL_* variables from the process's environment, so
 * those of the files join it, never overriding one the process has.
 */
const env = readEnvironment(process.env);
for (const [name, value] of Object.entries(env)) {
  if (name.startsWith('OTEL_') && process.env[name] === undefined) process.env[name] = value;
}
startTracing(env);
