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

/** REPS rounds of the two sides at once, each at `rate` requests a second. */
async function together(
  [off, on]: readonly [Side, Side],
  fresh: () => string,
  rate: number,
): Promise<Array<[Run, Run]>> {
  const all: Array<[Run, Run]> = [];
  for (let rep = 0; rep < REPS; rep++) {
    all.push(
      await Promise.all([
        cannon(off.url, fresh, SECONDS, off.pid, rate),
        cannon(on.url, fresh, SECONDS, on.pid, rate),
      ]),
    );
  }
  return all;
}

interface Side {
  label: string;
  url: string;
  pid: number;
}

/**
 * REPS rounds, the two sides one after the other, in turn first: each round's ratio (on / off)
 * compares two runs seconds apart, so a machine busier in one round than in another moves both.
 */
async function rounds(
  sides: readonly [Side, Side],
  fresh: () => string,
  rate?: number,
): Promise<Array<[Run, Run]>> {
  const all: Array<[Run, Run]> = [];
  for (let rep = 0; rep < REPS; rep++) {
    const [off, on] = sides;
    if (rep % 2 === 0) {
      const first = await cannon(off.url, fresh, SECONDS, off.pid, rate);
      all.push([first, await cannon(on.url, fresh, SECONDS, on.pid, rate)]);
    } else {
      const second = await cannon(on.url, fresh, SECONDS, on.pid, rate);
      all.push([await cannon(off.url, fresh, SECONDS, off.pid, rate), second]);
    }
  }
  return all;
}

/** The two connector processes, tracing off and on, each ready; `children` gets both. */
async function startSides(
  env: Record<string, string>,
  collectorUrl: string,
  children: Child[],
): Promise<[Side, Side]> {
  const sides: Side[] = [];
  for (const [label, extra] of [
    ['tracing off', { QUEUE_PREFIX: 'bench-trace-off' }],
    [
      'tracing on',
      {
        QUEUE_PREFIX: 'bench-trace-on',
        OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
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
  return [sides[0] as Side, sides[1] as Side];
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
    // Both at once, each at a fixed rate (a quarter of what tracing off answered flat out): the
    // two do the same work in the same batches on the same machine at the same moments, and CPU
    // a request is what each costs (its inverse, what each can carry).
    const rate = Math.round(median(flat.map(([off]) => off.rps)) / 4);
    const paced = await together(sides, fresh, rate);
    const report = reportRounds(flat, paced, rate);
    const errors = [...flat, ...paced].flat().reduce((sum, run) => sum + run.errors, 0);
    console.log(`exports received and dropped: ${collector.exports()}; errors: ${errors}`);
    reportTargets([
      { name: 'tracing on at least 0.9 of tracing off', met: (report.throughput ?? 0) >= 0.9 },
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

/** Prints both phases; answers the throughput ratio, the median of the rounds' ratios. */
function reportRounds(flat: Array<[Run, Run]>, paced: Array<[Run, Run]>, rate: number) {
  const column = (runs: Array<[Run, Run]>, side: 0 | 1, pick: (run: Run) => number) =>
    runs.map((round) => pick(round[side]));
  for (const [side, label] of [
    [0, 'tracing off'],
    [1, 'tracing on'],
  ] as const) {
    const rps = column(flat, side, (run) => run.rps);
    const p99 = median(column(flat, side, (run) => run.p99));
    const cpu = median(column(paced, side, (run) => run.cpuUsPerRequest));
    console.log(
      `${label}: ${median(rps).toFixed(0)} req/s flat out (runs: ${rps.map((v) => v.toFixed(0)).join(', ')}), p99 ${p99} ms; at ${rate} req/s, ${cpu.toFixed(0)} us CPU a request`,
    );
  }
  const throughput = median(flat.map(([off, on]) => safeRatio(on.rps, off.rps) ?? 0));
  const capacity = median(
    paced.map(([off, on]) => safeRatio(off.cpuUsPerRequest, on.cpuUsPerRequest) ?? 0),
  );
  console.log(
    `ratio (on / off): throughput ${showRatio(throughput)} (the median of ${flat.length} rounds: ${flat.map(([off, on]) => showRatio(safeRatio(on.rps, off.rps))).join(', ')}); CPU a request, off / on: ${showRatio(capacity)} (${paced.map(([off, on]) => showRatio(safeRatio(off.cpuUsPerRequest, on.cpuUsPerRequest))).join(', ')})`,
  );
  return { throughput, capacity };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
