/*
 * What tracing costs the checkout route, in CPU a request, side by side in one run: connector
 * processes (ROLE=api, LOG_LEVEL=warn, the api's NODE_OPTIONS as deployed):
 * - tracing off, twice: the second process shows what the noise alone moves;
 * - every request sampled, with an exporter that drops everything (bench/traced-server.ts): every
 *   span made, sampled, propagated and batched as it ships, then dropped;
 * - the same, sampled at 10% (`parentbased_traceidratio`, 0.1);
 * - every request sampled, exporting to a collector (a loopback receiver that answers every
 *   export 200 and keeps nothing): each span also encoded and sent.
 * Each side first runs flat out for BENCH_WARM_SECONDS (V8 sizes the young generation by what a
 * process allocated lately, and optimises the route as it runs: a side less warm than another
 * costs more a request). Then BENCH_REPS rounds, in each every side alone for BENCH_SECONDS at 60%
 * of what tracing off answered flat out, one after the other, the order turning (autocannon, 50
 * connections, on `/checkout`, each request a service of its own). Each run, the process's CPU
 * (every thread's, from /proc, in nanoseconds) over the requests it answered; a side's cost is the
 * median over the rounds of its difference to tracing off in the same round.
 * Targets (Node 24, the image's): every request sampled, at most 12 us more than off; sampled at
 * 10%, within the noise of off; both judged only when the run's noise lets it tell 6 us apart
 * (`judge`). Exits 1 when one is missed, or cannot be told.
 * Run: npm run bench:tracing   (BENCH_REPS=11 BENCH_SECONDS=4 BENCH_WARM_SECONDS=8;
 * BENCH_TRACING_ENV, JSON, adds variables to every traced side; BENCH_TRACING_VARIANT, JSON
 * {"label", "entry"?, "env"?}, adds a side sampled and exporting as the dropping one, e.g.
 * another tree's bench/traced-server.ts)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { freePort } from '../src/demo/free-port';
import { startPrivateRedis } from '../src/demo/private-redis';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import {
  apiNodeOptions,
  median,
  reportTargets,
  startChild,
  waitReady,
  type Child,
} from './bench-support';
import { startSimulatorProcess } from './simulator-process';

const REPS = Number(process.env.BENCH_REPS ?? 11);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 8);
const TOKEN = 'bench-route-token-0123456789';
const TARGET_US = 12;
/** The index of BENCH_TRACING_VARIANT's side, after the five of `sideSpecs`. */
const VARIANT = 5;

/** An OTLP/HTTP receiver that accepts every export and keeps nothing. */
async function droppingCollector() {
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** CPU nanoseconds every thread of `pid` has used so far (/proc/<pid>/task/<tid>/schedstat). */
function cpuNanos(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => {
    try {
      return sum + Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      return sum; // a thread that ended between the listing and the read
    }
  }, 0);
}

interface Run {
  rps: number;
  cpuUsPerRequest: number;
  errors: number;
}

/** autocannon on `url` for `seconds`, flat out or at `rate` requests a second; `pid`'s CPU. */
async function cannon(url: string, next: () => string, seconds: number, pid: number, rate = 0) {
  const cpuBefore = cpuNanos(pid);
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 50,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    requests: [{ setupRequest: (req) => ({ ...req, body: next() }) }],
  });
  const cpu = cpuNanos(pid) - cpuBefore;
  return {
    rps: result.requests.average,
    cpuUsPerRequest: cpu / 1000 / Math.max(1, result.requests.total),
    errors: result.non2xx + result.errors + result.timeouts,
  } satisfies Run;
}

interface SideSpec {
  label: string;
  entry: string;
  env: Record<string, string>;
}

interface Side extends SideSpec {
  url: string;
  pid: number;
  child: Child;
}

/** The sides: off twice, the dropping exporter at every request and at 10%, the collector. */
function sideSpecs(collectorUrl: string): SideSpec[] {
  const experiment = JSON.parse(process.env.BENCH_TRACING_ENV ?? '{}') as Record<string, string>;
  // The dropping sides need the endpoint set too (tracing is on only with one); they send nothing.
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, ...experiment };
  const tenth = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
  const dropping = 'bench/traced-server.ts';
  const specs: SideSpec[] = [
    { label: 'tracing off', entry: 'src/main/server.ts', env: {} },
    { label: 'tracing off, again', entry: 'src/main/server.ts', env: {} },
    { label: 'every request sampled', entry: dropping, env: traced },
    { label: 'sampled at 10%', entry: dropping, env: { ...traced, ...tenth } },
    { label: 'to a collector', entry: 'src/main/server.ts', env: traced },
  ];
  const variant = process.env.BENCH_TRACING_VARIANT;
  if (variant) {
    const { label, entry, env } = JSON.parse(variant) as Partial<SideSpec>;
    specs.push({ label: label ?? 'variant', entry: entry ?? dropping, env: { ...traced, ...env } });
  }
  return specs;
}

/** Each side's connector process, ready; `children` gets them. */
async function startSides(specs: SideSpec[], env: Record<string, string>, children: Child[]) {
  const sides: Side[] = [];
  for (const [index, spec] of specs.entries()) {
    const port = await freePort();
    const extra = { QUEUE_PREFIX: `bench-trace-${index}`, PORT: String(port) };
    const started = await startChild(
      spec.entry,
      { ...env, ...spec.env, ...extra },
      /connector started|"level":"warn"/,
    );
    children.push(started.child);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url);
    const pid = Number(started.child.process.pid);
    sides.push({ ...spec, url: `${url}/checkout`, pid, child: started.child });
  }
  return sides;
}

/**
 * REPS rounds, in each every side alone at `rate` requests a second, one after the other, the
 * order turning each round: a round's differences compare runs seconds apart. Each round's runs
 * are answered in the sides' order.
 */
async function rounds(sides: readonly Side[], next: () => string, rate: number) {
  const all: Run[][] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const round: Run[] = [];
    for (let turn = 0; turn < sides.length; turn++) {
      const index = (rep + turn) % sides.length;
      const side = sides[index] as Side;
      round[index] = await cannon(side.url, next, SECONDS, side.pid, rate);
    }
    all.push(round);
  }
  return all;
}

const us = (values: number[]) => values.map((value) => value.toFixed(1)).join(', ');

/** Each round's difference of side `index` to side `to`. */
const differencesOf = (rounds: Run[][], index: number, to: number) =>
  rounds.map(
    (round) => (round[index]?.cpuUsPerRequest ?? NaN) - (round[to]?.cpuUsPerRequest ?? NaN),
  );

/**
 * Prints each side's CPU a request and its differences to off (a variant's also to every request
 * sampled, the side it stands in for); answers each side's differences to off.
 */
function report(sides: readonly Side[], rounds: Run[][], rate: number): number[][] {
  console.log(`${REPS} rounds, each side alone for ${SECONDS} s at ${rate} requests a second`);
  const show = (differences: number[], to: string) =>
    `; to ${to}: ${median(differences).toFixed(1)} us (rounds: ${us(differences)})`;
  return sides.map((side, index) => {
    const cpu = rounds.map((round) => round[index]?.cpuUsPerRequest ?? NaN);
    const differences = differencesOf(rounds, index, 0);
    const variant =
      index >= VARIANT ? show(differencesOf(rounds, index, 2), 'every request sampled') : '';
    console.log(
      `${side.label}: ${median(cpu).toFixed(1)} us CPU a request (rounds: ${us(cpu)})` +
        (index === 0 ? '' : show(differences, 'off')) +
        variant,
    );
    return differences;
  });
}

/**
 * The targets, judged only when the run can tell: `margin`, about the standard error of a side's
 * median difference (twice the typical difference between the two tracing-off processes in a
 * round, over the square root of the rounds), must be at most half the target. Every request
 * sampled: its median difference at most TARGET_US. Sampled at 10%: its median difference within
 * two margins of none.
 */
function judge(differences: number[][], dropped: number, exported: number, errors: number) {
  const noise = median((differences[1] ?? []).map(Math.abs));
  const margin = (2 * noise) / Math.sqrt(REPS);
  const judged = margin <= TARGET_US / 2;
  const [sampled, tenth] = [median(differences[2] ?? []), median(differences[3] ?? [])];
  console.log(
    `noise: off against off, ${noise.toFixed(1)} us in a typical round; margin of a median ${margin.toFixed(1)} us`,
  );
  reportTargets([
    { name: `the run tells ${TARGET_US / 2} us apart (margin ${margin.toFixed(1)})`, met: judged },
    {
      name: `every request sampled: at most ${TARGET_US} us more CPU a request than off (${sampled.toFixed(1)})`,
      met: judged && sampled <= TARGET_US,
    },
    {
      name: `sampled at 10%: within the noise of off (${tenth.toFixed(1)}, two margins ${(2 * margin).toFixed(1)})`,
      met: judged && Math.abs(tenth) <= 2 * margin,
    },
    { name: 'the traced processes handed their spans on', met: dropped > 0 && exported > 0 },
    { name: 'no request failed', met: errors === 0 },
  ]);
}

/** Spans the dropping exporter was handed: it says so when its process stops. */
async function droppedBy(side: Side | undefined): Promise<number> {
  await side?.child.stop();
  return Number(/spans dropped by the exporter: (\d+)/.exec(side?.child.output() ?? '')?.[1] ?? 0);
}

/** Each side warmed flat out, then the rounds at 60% of what tracing off answered flat out. */
async function measure(sides: Side[]) {
  let next = 100_000;
  const fresh = () => JSON.stringify({ service_id: next++ });
  const flat: Run[] = [];
  for (const side of sides) flat.push(await cannon(side.url, fresh, WARM_SECONDS, side.pid));
  const rates = flat.map((run) => run.rps.toFixed(0)).join(', ');
  console.log(`flat out, each side warming: ${rates} requests a second`);
  const rate = Math.max(10, Math.round((flat[0]?.rps ?? 0) * 0.6));
  const all = await rounds(sides, fresh, rate);
  return { rounds: all, rate, errors: all.flat().reduce((sum, run) => sum + run.errors, 0) };
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
    console.log(`Node ${process.version}`);
    const sides = await startSides(sideSpecs(collector.url), env, children);
    const { rounds, rate, errors } = await measure(sides);
    const differences = report(sides, rounds, rate);
    const dropped = await droppedBy(sides[2]);
    console.log(
      `spans dropped by the exporter: ${dropped}; exports the collector received: ${collector.exports()}; errors: ${errors}`,
    );
    judge(differences, dropped, collector.exports(), errors);
  } finally {
    for (const child of children) await child.stop();
    await collector.close();
    simulator.stop();
    await redis.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
