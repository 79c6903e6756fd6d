/*
 * What tracing costs the checkout route, side by side in one run: three connector processes
 * (ROLE=api, LOG_LEVEL=warn, the api's NODE_OPTIONS as deployed):
 * - tracing off;
 * - tracing on with an exporter that drops everything (bench/traced-server.ts): every span is
 *   made, sampled, propagated and batched as it ships, and handed to an exporter that drops it;
 * - tracing on exporting to a collector (OTEL_EXPORTER_OTLP_ENDPOINT aimed at a loopback receiver
 *   that answers every export 200 and keeps nothing): the spans are also encoded and sent.
 * autocannon, 50 connections, on each one's route `/checkout`, each request a service of its own.
 *
 * Flat out: BENCH_REPS rounds of BENCH_SECONDS each, the sides one after the other in a turning
 * order; each traced side's ratio to off is the median of the rounds' ratios. Paced: the three at
 * once, each at a sixth of what tracing off answered flat out, and each process's CPU a request.
 * Target: tracing on with the dropping exporter at least 0.9 of tracing off, flat out; exits 1 when
 * it is missed. The collector's side is reported beside it.
 * Run: npm run bench:tracing   (BENCH_REPS=5 BENCH_SECONDS=4; BENCH_TRACING_ENV, JSON, adds
 * variables to both traced sides, e.g. {"OTEL_TRACES_SAMPLER":"always_off"})
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

interface Run {
  rps: number;
  p99: number;
  cpuUsPerRequest: number;
  errors: number;
}

/** autocannon on `url` for `seconds`, flat out or at `rate` requests a second; `pid`'s CPU. */
async function cannon(
  url: string,
  nextBody: () => string,
  seconds: number,
  pid = 0,
  rate?: number,
): Promise<Run> {
  const cpuBefore = pid ? cpuSeconds(pid) : 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 50,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
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

interface Side {
  label: string;
  url: string;
  pid: number;
  child: Child;
}

/** REPS rounds of every side at once, each at `rate` requests a second. */
async function together(sides: readonly Side[], fresh: () => string, rate: number) {
  const all: Run[][] = [];
  for (let rep = 0; rep < REPS; rep++) {
    all.push(
      await Promise.all(sides.map((side) => cannon(side.url, fresh, SECONDS, side.pid, rate))),
    );
  }
  return all;
}

/**
 * REPS rounds, the sides one after the other, the order turning each round: each round's ratios
 * compare runs seconds apart, so a machine busier in one round than in another moves all of them.
 * Each round's runs are answered in the sides' order.
 */
async function rounds(sides: readonly Side[], fresh: () => string): Promise<Run[][]> {
  const all: Run[][] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const round: Run[] = [];
    for (let turn = 0; turn < sides.length; turn++) {
      const index = (rep + turn) % sides.length;
      const side = sides[index] as Side;
      round[index] = await cannon(side.url, fresh, SECONDS, side.pid);
    }
    all.push(round);
  }
  return all;
}

/** The three connector processes, each ready; `children` gets them. */
async function startSides(
  env: Record<string, string>,
  collectorUrl: string,
  children: Child[],
): Promise<Side[]> {
  const experiment = JSON.parse(process.env.BENCH_TRACING_ENV ?? '{}') as Record<string, string>;
  // The dropping side needs the endpoint set too (tracing is on only with one); it sends nothing.
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, ...experiment };
  const sides: Side[] = [];
  for (const [label, entry, extra] of [
    ['tracing off', 'src/main/server.ts', { QUEUE_PREFIX: 'bench-trace-off' }],
    [
      'dropping exporter',
      'bench/traced-server.ts',
      { QUEUE_PREFIX: 'bench-trace-drop', ...traced },
    ],
    ['to a collector', 'src/main/server.ts', { QUEUE_PREFIX: 'bench-trace-otlp', ...traced }],
  ] as const) {
    const port = await freePort();
    const started = await startChild(
      entry,
      { ...env, ...extra, PORT: String(port) },
      /connector started|"level":"warn"/,
    );
    children.push(started.child);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url);
    sides.push({
      label,
      url: `${url}/checkout`,
      pid: Number(started.child.process.pid),
      child: started.child,
    });
  }
  return sides;
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
    const sides = await startSides(env, collector.url, children);
    let next = 100_000;
    const fresh = () => JSON.stringify({ service_id: next++ });
    for (const side of sides) await cannon(side.url, fresh, 2);
    const flat = await rounds(sides, fresh);
    // All at once, each at a fixed rate: they do the same work in the same batches on the same
    // machine at the same moments, and CPU a request is what each costs.
    const rate = Math.round(median(flat.map((round) => round[0]?.rps ?? 0)) / 6);
    const paced = await together(sides, fresh, rate);
    const ratios = reportRounds(sides, flat, paced, rate);
    const errors = [...flat, ...paced].flat().reduce((sum, run) => sum + run.errors, 0);
    // Stopped here to read what the dropping exporter was handed (it says so at its end).
    await sides[1]?.child.stop();
    const dropped = Number(
      /spans dropped by the exporter: (\d+)/.exec(sides[1]?.child.output() ?? '')?.[1] ?? 0,
    );
    console.log(
      `spans dropped by the exporter: ${dropped}; exports received and dropped by the collector: ${collector.exports()}; errors: ${errors}`,
    );
    reportTargets([
      {
        name: 'tracing on (an exporter that drops everything) at least 0.9 of tracing off',
        met: (ratios[1] ?? 0) >= 0.9,
      },
      {
        name: 'both traced processes handed their spans on',
        met: dropped > 0 && collector.exports() > 0,
      },
      { name: 'no request failed', met: errors === 0 },
    ]);
  } finally {
    for (const child of children) await child.stop();
    await collector.close();
    await simulator.stop();
    await redis.close();
  }
}

/** Prints both phases; answers each side's throughput ratio to off (the first side's). */
function reportRounds(sides: readonly Side[], flat: Run[][], paced: Run[][], rate: number) {
  const column = (runs: Run[][], index: number, pick: (run: Run) => number) =>
    runs.map((round) => (round[index] ? pick(round[index]) : NaN));
  const ratioTo = (runs: Run[][], index: number, pick: (run: Run) => number, inverse = false) =>
    runs.map((round) => {
      const [off, side] = [round[0], round[index]];
      if (!off || !side) return 0;
      return (inverse ? safeRatio(pick(off), pick(side)) : safeRatio(pick(side), pick(off))) ?? 0;
    });
  const show = (values: number[]) => values.map((value) => showRatio(value)).join(', ');
  const ratios: number[] = [];
  sides.forEach((side, index) => {
    const rps = column(flat, index, (run) => run.rps);
    const p99 = median(column(flat, index, (run) => run.p99));
    const cpu = median(column(paced, index, (run) => run.cpuUsPerRequest));
    console.log(
      `${side.label}: ${median(rps).toFixed(0)} req/s flat out (runs: ${rps.map((v) => v.toFixed(0)).join(', ')}), p99 ${p99} ms; at ${rate} req/s, ${cpu.toFixed(0)} us CPU a request`,
    );
    if (index === 0) return;
    const throughput = ratioTo(flat, index, (run) => run.rps);
    const cpuRatio = ratioTo(paced, index, (run) => run.cpuUsPerRequest, true);
    ratios[index] = median(throughput);
    console.log(
      `  ratio to off: throughput ${showRatio(median(throughput))} (rounds: ${show(throughput)}); CPU a request, off / this: ${showRatio(median(cpuRatio))} (${show(cpuRatio)})`,
    );
  });
  return ratios;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
