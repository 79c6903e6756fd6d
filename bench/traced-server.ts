import { ExportResultCode } from '@opentelemetry/core';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { startTracing } from '../src/tracing/tracing';

/*
 * The connector's server (src/main/server.ts) with tracing on and an exporter that drops every
 * batch it is handed (bench/tracing-overhead.ts): spans are made, sampled, propagated and batched
 * as they ship, and neither encoded nor sent. At its end it says how many it was handed.
 */
let dropped = 0;
const dropping: SpanExporter = {
  export: (spans, done) => {
    dropped += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  },
  shutdown: async () => {
    process.stdout.write(`spans dropped by the exporter: ${dropped}\n`);
  },
};

// Before the server's own start of the SDK (src/main/tracing-start.ts), which then finds it on.
startTracing(process.env, { exporter: dropping });
// eslint-disable-next-line @typescript-eslint/no-require-imports -- after tracing started, as the server's first import does
require('../src/main/server');
