/*
 * What tracing costs the checkout route, side by side in one run (alternating, BENCH_REPS
 * repetitions, the median): two connector processes (ROLE=api, LOG_LEVEL=warn, the image's
 * NODE_OPTIONS), one with tracing off, one with OTEL_EXPORTER_OTLP_ENDPOINT aimed at a loopback
 * collector that answers every export 200 and keeps nothing (an exporter that drops everything:
 * every span is still made, batched, encoded and sent). autocannon, 50 connections, BENCH_SECONDS
 * each, on each one's route `/checkout`, each request a service of its own.
 *
 * Reported: requests per second of each, p99, and their ratio (target: tracing on at least 0.9 of
 * tracing off); exits 1 when the target is missed.
 * Run: npm run bench:tracing   (BENCH_REPS=5 BENCH_SECONDS=4)
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { freePort } from '../src/infra/free-port';
import { startPrivateRedis } from '../src/infra/private-redis';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import {
  apiNodeOptions,
  cpuSeconds,
  median,
  reportTargets,
  safeRatio,
  showRatio,
  startChild,
  waitReady,
  type Child,
} from './bench-support';
import { startSimulatorProcess } from './simulator-process';

const REPS = Number(process.env.BENCH_REPS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const TOKEN = 'bench-route-token-0123456789';

/** An OTLP/HTTP receiver that accepts every export and keeps nothing. */
async function droppingCollector(): Promise<{
  url: string;
  exports: () => number;
  close: () => Promise<void>;
}> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function cannon(url: string, nextBody: () => string, seconds: number, pid = 0) {
  const cpuBefore = pid ? cpuSeconds(pid) : 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 50,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    requests: [{ setupRequest: (req) => ({ ...req, body: nextBody() }) }],
  });
  const cpu = pid ? cpuSeconds(pid) - cpuBefore : 0;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuUsPerRequest: (cpu * 1e6) / Math.max(1, result.requests.total),
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const simulator = await startSimulatorProcess(100);
  const collector = await droppingCollector();
  const children: Child[] = [];
  const env = {
    NODE_ENV: 'production',
    SANDBOX_IN_PRODUCTION: 'true',
    REDIS_URL: redis.url,
    PLATFORM_BASE_URL: simulator.url,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_TOKEN: TOKEN,
    LOG_LEVEL: 'warn',
    ROLE: 'api',
    NODE_OPTIONS: apiNodeOptions(),
  };
  try {
    const sides: Array<{ label: string; url: string; pid: number }> = [];
    for (const [label, extra] of [
      ['tracing off', { QUEUE_PREFIX: 'bench-trace-off' }],
      [
        'tracing on',
        {
          QUEUE_PREFIX: 'bench-trace-on',
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          // Experiments (OTEL_TRACES_SAMPLER=always_off, say), as JSON.
          ...(JSON.parse(process.env.BENCH_TRACING_ENV ?? '{}') as Record<string, string>),
        },
      ],
    ] as const) {
      const port = await freePort();
      const started = await startChild(
        'src/main/server.ts',
        { ...env, ...extra, PORT: String(port) },
        /connector started|"level":"warn"/,
      );
      children.push(started.child);
      const url = `http://127.0.0.1:${port}`;
      await waitReady(url);
      sides.push({ label, url: `${url}/checkout`, pid: Number(started.child.process.pid) });
    }
    let next = 100_000;
    const fresh = () => JSON.stringify({ service_id: next++ });
    for (const side of sides) await cannon(side.url, fresh, 2);
    const runs: Record<
      string,
      Array<{ rps: number; p99: number; cpuUsPerRequest: number; errors: number }>
    > = {};
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order)
        (runs[side.label] ??= []).push(await cannon(side.url, fresh, SECONDS, side.pid));
    }
    const rps = (label: string) => median((runs[label] ?? []).map((run) => run.rps));
    const p99 = (label: string) => median((runs[label] ?? []).map((run) => run.p99));
    const cpu = (label: string) => median((runs[label] ?? []).map((run) => run.cpuUsPerRequest));
    for (const label of ['tracing off', 'tracing on'])
      console.log(
        `${label}: ${rps(label).toFixed(0)} req/s, p99 ${p99(label)} ms, ${cpu(label).toFixed(0)} us CPU a request (runs: ${(runs[label] ?? []).map((run) => run.rps.toFixed(0)).join(', ')})`,
      );
    const errors = Object.values(runs)
      .flat()
      .reduce((sum, run) => sum + run.errors, 0);
    const ratio = safeRatio(rps('tracing on'), rps('tracing off'));
    console.log(
      `ratio (on / off): ${showRatio(ratio)}; exports received and dropped: ${collector.exports()}; errors: ${errors}`,
    );
    reportTargets([
      { name: 'tracing on at least 0.9 of tracing off', met: (ratio ?? 0) >= 0.9 },
      { name: 'the traced process exported spans', met: collector.exports() > 0 },
      { name: 'no request failed', met: errors === 0 },
    ]);
  } finally {
    for (const child of children) await child.stop();
    await collector.close();
    await simulator.stop();
    await redis.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
