/*
 * The inbound path, measured as a new user would, side by side with bare baselines in one run
 * (alternating, BENCH_REPS repetitions, the median):
 *
 *   route:     autocannon, 50 connections, BENCH_SECONDS each, against the checkout route of a
 *              connector process (ROLE=api, LOG_LEVEL=warn) and against a bare node:http server
 *              doing the very same Redis work (bench/bare-checkout-server.ts): new services
 *              (each request a service of its own) and repeats of one open checkout.
 *              Requests per second, p50/p99 latency, CPU per request of the server process.
 *   pipeline:  request to checkout URL received by the platform simulator: the connector
 *              (ROLE=all: route, queue, worker, sandbox provider, two platform calls) against a
 *              bare BullMQ worker making the same two platform calls (bench/bare-checkout-
 *              worker.ts), same concurrency: one at a time (p50, p99) and bursts of 10, 50, 200
 *              (time until the last URL arrives), BENCH_BURST_ROUNDS rounds of each per
 *              repetition, the sides alternating.
 *
 * Every process (connector, baselines, simulator) is a child of its own; Redis is private.
 * BENCH_REPLICA=1 gives it a replica, so the connector WAITs for it before each URL goes out
 * (docs/redis.md, "Redis"); the bare sides do not: the ratios then include what the WAIT costs.
 * Run: npm run bench:inbound   (BENCH_REPS=3 BENCH_SECONDS=5 BENCH_SINGLE=30 by default)
 */
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { Queue } from 'bullmq';
import { freePort } from '../src/infra/free-port';
import { startPrivateRedis, type PrivateRedis } from '../src/infra/private-redis';
import { closeRedis, createRedis, redisOptions } from '../src/infra/redis';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import {
  cpuSeconds,
  median,
  percentile,
  safeRatio,
  showRatio,
  sleep,
  startChild,
  waitReady,
  type Child,
} from './bench-support';
import { startSimulatorProcess } from './simulator-process';

const REPS = Number(process.env.BENCH_REPS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 30);
const BURSTS = [10, 50, 200];
/** Rounds of each burst size per repetition. */
const BURST_ROUNDS = Number(process.env.BENCH_BURST_ROUNDS ?? 5);
/** BENCH_SPLIT=1: the connector as an api process and a worker process, not one ROLE=all. */
const SPLIT = process.env.BENCH_SPLIT === '1';
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? '10';
const TOKEN = 'bench-route-token-0123456789';
/** `route`, `pipeline` or both (default), to profile one part at a time. */
const PARTS = (process.env.BENCH_PARTS ?? 'route,pipeline').split(',');

interface RouteRun {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  errors: number;
}

async function cannon(
  url: string,
  pid: number,
  nextBody: () => string,
  seconds: number,
): Promise<RouteRun> {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 50,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    requests: [{ setupRequest: (req) => ({ ...req, body: nextBody() }) }],
  });
  const cpu = cpuSeconds(pid) - cpuBefore;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUsPerRequest: (cpu * 1e6) / Math.max(1, result.requests.total),
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/** The checkout URLs the simulator received, by service: read with a cursor, never twice. */
class Arrivals {
  private readonly seen = new Map<number, number>();
  private cursor = 0;
  constructor(private readonly simulatorUrl: string) {}

  async poll(): Promise<Map<number, number>> {
    const res = await fetch(`${this.simulatorUrl}/__simulator/calls?from=${this.cursor}`);
    const { payments } = (await res.json()) as {
      payments: Array<{ endpoint: string; serviceId?: number; receivedAt: string }>;
    };
    this.cursor += payments.length;
    for (const p of payments) {
      if (
        p.endpoint === 'checkout-url' &&
        p.serviceId !== undefined &&
        !this.seen.has(p.serviceId)
      ) {
        this.seen.set(p.serviceId, Date.parse(p.receivedAt));
      }
    }
    return this.seen;
  }
}

/** Sends `ids` at once through `start`; resolves with each one's ms from sending to arrival. */
async function pipeline(
  arrivals: Arrivals,
  ids: number[],
  start: (serviceId: number) => Promise<unknown>,
): Promise<{ latencies: number[]; totalMs: number }> {
  const sentAt = new Map<number, number>();
  const began = Date.now();
  await Promise.all(
    ids.map((id) => {
      sentAt.set(id, Date.now());
      return start(id);
    }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = await arrivals.poll();
    if (ids.every((id) => seen.has(id))) {
      const latencies = ids.map((id) => (seen.get(id) ?? NaN) - (sentAt.get(id) ?? NaN));
      const last = Math.max(...ids.map((id) => seen.get(id) ?? NaN));
      return { latencies, totalMs: last - began };
    }
    if (Date.now() > deadline) throw new Error(`URLs missing after 60 s`);
    await sleep(ids.length === 1 ? 2 : 20);
  }
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** A replica of the private Redis (BENCH_REPLICA=1); resolves once it is in sync. */
async function startReplica(primaryUrl: string): Promise<PrivateRedis> {
  const replica = await startPrivateRedis({ replicaOf: primaryUrl });
  const client = createRedis(replica.url, 'worker', 'bench-replica');
  try {
    for (let i = 0; i < 100; i++) {
      const info = await client.info('replication').catch(() => '');
      if (/master_link_status:up/.test(info)) return replica;
      await sleep(100);
    }
    await replica.close();
    throw new Error('the replica never came in sync');
  } finally {
    await closeRedis(client);
  }
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const replica = process.env.BENCH_REPLICA === '1' ? await startReplica(redis.url) : undefined;
  const simulator = await startSimulatorProcess(
    100 + REPS * (2 * SINGLE + 2 * BURST_ROUNDS * BURSTS.reduce((a, b) => a + b, 0)),
  );
  const children: Child[] = [];
  const platformEnv = {
    PLATFORM_BASE_URL: simulator.url,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
  };
  const connectorEnv = {
    ...platformEnv,
    NODE_ENV: 'production',
    SANDBOX_IN_PRODUCTION: 'true',
    REDIS_URL: redis.url,
    CHECKOUT_ROUTE_TOKEN: TOKEN,
    LOG_LEVEL: 'warn',
    X_BARE_EXPRESS: process.env.X_BARE_EXPRESS ?? '',
    WORKER_CONCURRENCY: CONCURRENCY,
  };
  try {
    const route: Record<string, Record<string, RouteRun[]>> = {};
    if (PARTS.includes('route')) {
      // ---- the route ----
      const apiPort = await freePort();
      const api = await startChild(
        'src/main/server.ts',
        { ...connectorEnv, ROLE: 'api', PORT: String(apiPort), QUEUE_PREFIX: 'bench-route-c' },
        /connector started|"level":"warn"/,
      ).catch(async (error: unknown) => {
        throw error;
      });
      children.push(api.child);
      const apiUrl = `http://127.0.0.1:${apiPort}`;
      await waitReady(apiUrl);
      const bare = await startChild(
        'bench/bare-checkout-server.ts',
        { ...connectorEnv, PORT: '0', QUEUE_PREFIX: 'bench-route-b' },
        /bare listening (\d+)/,
      );
      children.push(bare.child);
      const bareUrl = `http://127.0.0.1:${bare.match[1]}`;

      let nextNew = 100_000;
      const fresh = () => JSON.stringify({ service_id: nextNew++ });
      const repeat = () => '{"service_id": 99999}';
      const sides = [
        { label: 'connector', url: `${apiUrl}/checkout`, pid: Number(api.child.process.pid) },
        { label: 'bare', url: `${bareUrl}/checkout`, pid: Number(bare.child.process.pid) },
      ];
      // Warm-up: JIT, connections, scripts loaded; not counted.
      for (const side of sides) await cannon(side.url, side.pid, fresh, 2);

      for (let rep = 0; rep < REPS; rep++) {
        for (const [workload, body] of [
          ['new services', fresh],
          ['repeats of an open checkout', repeat],
        ] as const) {
          // Alternate which side goes first, so neither always runs on a warmer machine.
          const order = rep % 2 === 0 ? sides : [...sides].reverse();
          for (const side of order) {
            const run = await cannon(side.url, side.pid, body, SECONDS);
            ((route[workload] ??= {})[side.label] ??= []).push(run);
          }
        }
      }
      await api.child.stop();
      await bare.child.stop();
    }

    const single: Record<string, number[]> = { connector: [], bare: [] };
    const bursts: Record<string, Record<number, number[]>> = { connector: {}, bare: {} };
    /** CPU ms per checkout of the process doing the work (the connector; the bare worker). */
    const burstCpu: Record<string, Record<number, number[]>> = { connector: {}, bare: {} };
    if (PARTS.includes('pipeline')) {
      // ---- the pipeline: request to URL ----
      // ROLE=all: one process takes the request and runs the job. SPLIT: an api process and a
      // worker process, as README's scaling section deploys them (the bare side, too, adds its
      // jobs in one process, the benchmark's, and runs them in another).
      const allPort = await freePort();
      const all = await startChild(
        'src/main/server.ts',
        {
          ...connectorEnv,
          ROLE: SPLIT ? 'api' : 'all',
          PORT: String(allPort),
          QUEUE_PREFIX: 'bench-pipe-c',
        },
        /connector started|"level":"warn"/,
      );
      children.push(all.child);
      const allUrl = `http://127.0.0.1:${allPort}`;
      await waitReady(allUrl);
      const connectorWorker = SPLIT
        ? await startChild(
            'src/main/server.ts',
            {
              ...connectorEnv,
              ROLE: 'worker',
              PORT: String(await freePort()),
              QUEUE_PREFIX: 'bench-pipe-c',
            },
            /"level":"warn"/,
          )
        : undefined;
      if (connectorWorker) children.push(connectorWorker.child);
      const connectorPids = [all, connectorWorker].flatMap((c) =>
        c ? [Number(c.child.process.pid)] : [],
      );
      const worker = await startChild(
        'bench/bare-checkout-worker.ts',
        { ...platformEnv, REDIS_URL: redis.url, WORKER_CONCURRENCY: CONCURRENCY },
        /bare worker ready/,
      );
      children.push(worker.child);
      const queue = new Queue('bare-checkout', {
        connection: redisOptions(redis.url, 'producer'),
        prefix: 'bench-bare',
      });
      const starters = {
        connector: (serviceId: number) =>
          fetch(`${allUrl}/checkout`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
            body: JSON.stringify({ service_id: serviceId }),
          }).then(async (res) => {
            if (res.status !== 202) throw new Error(`checkout route answered ${res.status}`);
            await res.arrayBuffer();
          }),
        bare: (serviceId: number) =>
          queue.add('checkout', { serviceId }, { removeOnComplete: true, removeOnFail: true }),
      };
      const arrivals = new Arrivals(simulator.url);
      let nextService = 1001;
      const take = (n: number) => Array.from({ length: n }, () => nextService++);
      // Warm-up.
      for (const start of Object.values(starters)) await pipeline(arrivals, take(20), start);

      for (let rep = 0; rep < REPS; rep++) {
        const order =
          rep % 2 === 0 ? (['connector', 'bare'] as const) : (['bare', 'connector'] as const);
        for (const label of order) {
          for (let i = 0; i < SINGLE; i++) {
            const { latencies } = await pipeline(arrivals, take(1), starters[label]);
            single[label]?.push(...latencies);
          }
        }
        // Bursts are short (tens of ms for 10): several rounds of each, the sides alternating.
        for (const size of BURSTS) {
          for (let round = 0; round < BURST_ROUNDS; round++) {
            const sides: ReadonlyArray<'connector' | 'bare'> =
              round % 2 === 0 ? order : [...order].reverse();
            for (const label of sides) {
              const pids =
                label === 'connector' ? connectorPids : [Number(worker.child.process.pid)];
              const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
              const cpuBefore = cpu();
              const { totalMs } = await pipeline(arrivals, take(size), starters[label]);
              ((bursts[label] ??= {})[size] ??= []).push(totalMs);
              ((burstCpu[label] ??= {})[size] ??= []).push(((cpu() - cpuBefore) * 1000) / size);
            }
          }
        }
      }
      await queue.close();
    }

    // ---- report ----
    const cores = cpus().length;
    console.log(
      `\nInbound benchmark: ${REPS} repetitions alternating, medians; ${cores} cores, Node ${process.version}, worker concurrency ${CONCURRENCY}${replica ? '; Redis with a replica: the connector WAITs for it' : ''}`,
    );
    console.log('\nRoute (autocannon, 50 connections, %d s each):', SECONDS);
    for (const [workload, bySide] of Object.entries(route)) {
      const c = bySide.connector ?? [];
      const b = bySide.bare ?? [];
      const m = (runs: RouteRun[], key: keyof RouteRun) => median(runs.map((r) => r[key]));
      const ratios = c.map((run, i) => safeRatio(run.rps, b[i]?.rps ?? NaN) ?? NaN);
      console.log(`  ${workload}`);
      for (const [label, runs] of [
        ['connector', c],
        ['bare', b],
      ] as const) {
        console.log(
          `    ${label.padEnd(10)} ${fmt(m(runs, 'rps'), 0).padStart(6)} req/s  p50 ${fmt(m(runs, 'p50'), 0)} ms  p99 ${fmt(m(runs, 'p99'), 0)} ms  CPU ${fmt(m(runs, 'cpuUsPerRequest'), 0)} us/request  non-2xx/errors ${runs.reduce((sum, r) => sum + r.errors, 0)}`,
        );
      }
      const cpuRatio = safeRatio(m(c, 'cpuUsPerRequest'), m(b, 'cpuUsPerRequest'));
      console.log(
        `    throughput connector/bare: median ${fmt(median(ratios), 2)} (each rep: ${ratios.map((r) => fmt(r, 2)).join(', ')}; target >= 0.6)   CPU per request connector/bare: ${showRatio(cpuRatio)}   connector p99 ${fmt(m(c, 'p99'), 0)} ms (target < 20)`,
      );
    }
    if (PARTS.includes('pipeline')) {
      console.log(
        `\nPipeline: request to checkout URL received by the platform (connector: ${SPLIT ? 'an api and a worker process' : 'one ROLE=all process'})`,
      );
      for (const label of ['connector', 'bare'] as const) {
        const values = single[label] ?? [];
        console.log(
          `  one at a time   ${label.padEnd(10)} p50 ${fmt(percentile(values, 50), 0)} ms  p99 ${fmt(percentile(values, 99), 0)} ms  (${values.length} checkouts)`,
        );
      }
      console.log(`  connector p50 one at a time: target < 30 ms`);
      for (const size of BURSTS) {
        const c = bursts.connector?.[size] ?? [];
        const b = bursts.bare?.[size] ?? [];
        const ratios = c.map((ms, i) => safeRatio(b[i] ?? NaN, ms) ?? NaN);
        console.log(
          `  burst of ${String(size).padEnd(4)} connector ${fmt(median(c), 0).padStart(5)} ms  bare ${fmt(median(b), 0).padStart(5)} ms  throughput connector/bare: median ${fmt(median(ratios), 2)} of ${ratios.length} pairs (quartiles ${fmt(percentile(ratios, 25), 2)} to ${fmt(percentile(ratios, 75), 2)}; target >= 0.6)  CPU per checkout: connector ${fmt(median(burstCpu.connector?.[size] ?? []), 2)} ms, bare worker ${fmt(median(burstCpu.bare?.[size] ?? []), 2)} ms`,
        );
      }
    }
  } finally {
    for (const child of children) await child.stop();
    simulator.stop();
    await replica?.close();
    await redis.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
