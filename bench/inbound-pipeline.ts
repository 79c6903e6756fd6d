/*
 * The inbound benchmark's second part (bench/inbound-checkout.ts): from the checkout request to
 * the checkout URL received by the platform simulator, the connector (ROLE=all, or an api and a
 * worker process with BENCH_SPLIT=1) against a bare BullMQ worker making the same two platform
 * calls (bench/bare-checkout-worker.ts), same concurrency: one at a time (p50, p99) and bursts of
 * 10, 50, 200 (time until the last URL arrives), BENCH_BURST_ROUNDS rounds of each per
 * repetition, the sides alternating.
 */
import { Queue } from 'bullmq';
import { freePort } from '../src/demo/free-port';
import { redisOptions } from '../src/redis/redis';
import {
  cpuSeconds,
  median,
  percentile,
  safeRatio,
  sleep,
  startChild,
  waitReady,
  type Child,
} from './bench-support';

export const BURSTS = [10, 50, 200];
/** Rounds of each burst size per repetition. */
export const BURST_ROUNDS = Number(process.env.BENCH_BURST_ROUNDS ?? 5);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 30);
/** BENCH_SPLIT=1: the connector as an api process and a worker process, not one ROLE=all. */
const SPLIT = process.env.BENCH_SPLIT === '1';

type Side = 'connector' | 'bare';

export interface PipelineResults {
  single: Record<Side, number[]>;
  bursts: Record<Side, Record<number, number[]>>;
  /** CPU ms per checkout of the process doing the work (the connector; the bare worker). */
  burstCpu: Record<Side, Record<number, number[]>>;
}

/** Checkouts the simulator must serve for `reps` repetitions of the pipeline. */
export const pipelineServices = (reps: number) =>
  reps * (2 * SINGLE + 2 * BURST_ROUNDS * BURSTS.reduce((a, b) => a + b, 0));

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

/** The connector's processes (ROLE=all, or api and worker) and its checkout route's URL. */
async function startConnector(env: Record<string, string>, children: Child[]) {
  const port = await freePort();
  const role = { ...env, PORT: String(port), QUEUE_PREFIX: 'bench-pipe-c' };
  const api = await startChild(
    'src/main/server.ts',
    { ...role, ROLE: SPLIT ? 'api' : 'all' },
    /connector started|"level":"warn"/,
  );
  children.push(api.child);
  const worker = SPLIT
    ? await startChild(
        'src/main/server.ts',
        { ...role, ROLE: 'worker', PORT: String(await freePort()) },
        /"level":"warn"/,
      )
    : undefined;
  if (worker) children.push(worker.child);
  const pids = [api, worker].flatMap((c) => (c ? [Number(c.child.process.pid)] : []));
  return { url: `http://127.0.0.1:${port}`, pids };
}

/** The platform asking the connector's route for a checkout; resolves once answered 202. */
function askConnector(url: string, token: string) {
  return (serviceId: number) =>
    fetch(`${url}/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ service_id: serviceId }),
    }).then(async (res) => {
      if (res.status !== 202) throw new Error(`checkout route answered ${res.status}`);
      await res.arrayBuffer();
    });
}

interface Setting {
  connectorEnv: Record<string, string>;
  platformEnv: Record<string, string>;
  redisUrl: string;
  simulatorUrl: string;
  token: string;
  reps: number;
}

/** Both sides started, then `reps` repetitions: one at a time, then the bursts, alternating. */
export async function runPipeline(setting: Setting, children: Child[]): Promise<PipelineResults> {
  const connector = await startConnector(setting.connectorEnv, children);
  await waitReady(connector.url);
  const worker = await startChild(
    'bench/bare-checkout-worker.ts',
    {
      ...setting.platformEnv,
      REDIS_URL: setting.redisUrl,
      WORKER_CONCURRENCY: setting.connectorEnv.WORKER_CONCURRENCY ?? '10',
    },
    /bare worker ready/,
  );
  children.push(worker.child);
  const queue = new Queue('bare-checkout', {
    connection: redisOptions(setting.redisUrl, 'producer'),
    prefix: 'bench-bare',
  });
  try {
    const starters: Record<Side, (serviceId: number) => Promise<unknown>> = {
      connector: askConnector(connector.url, setting.token),
      bare: (serviceId) =>
        queue.add('checkout', { serviceId }, { removeOnComplete: true, removeOnFail: true }),
    };
    const pids = { connector: connector.pids, bare: [Number(worker.child.process.pid)] };
    return await repetitions(new Arrivals(setting.simulatorUrl), starters, pids, setting.reps);
  } finally {
    await queue.close();
  }
}

async function repetitions(
  arrivals: Arrivals,
  starters: Record<Side, (serviceId: number) => Promise<unknown>>,
  pids: Record<Side, number[]>,
  reps: number,
): Promise<PipelineResults> {
  const results: PipelineResults = {
    single: { connector: [], bare: [] },
    bursts: { connector: {}, bare: {} },
    burstCpu: { connector: {}, bare: {} },
  };
  let nextService = 1001;
  const take = (n: number) => Array.from({ length: n }, () => nextService++);
  // Warm-up.
  for (const start of Object.values(starters)) await pipeline(arrivals, take(20), start);
  for (let rep = 0; rep < reps; rep++) {
    const order: Side[] = rep % 2 === 0 ? ['connector', 'bare'] : ['bare', 'connector'];
    for (const side of order) {
      for (let i = 0; i < SINGLE; i++) {
        const { latencies } = await pipeline(arrivals, take(1), starters[side]);
        results.single[side].push(...latencies);
      }
    }
    // Bursts are short (tens of ms for 10): several rounds of each, the sides alternating.
    for (const size of BURSTS) {
      for (let round = 0; round < BURST_ROUNDS; round++) {
        for (const side of round % 2 === 0 ? order : [...order].reverse()) {
          const cpu = () => pids[side].reduce((sum, pid) => sum + cpuSeconds(pid), 0);
          const cpuBefore = cpu();
          const { totalMs } = await pipeline(arrivals, take(size), starters[side]);
          (results.bursts[side][size] ??= []).push(totalMs);
          (results.burstCpu[side][size] ??= []).push(((cpu() - cpuBefore) * 1000) / size);
        }
      }
    }
  }
  return results;
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** The pipeline's lines of the report; its targets (issue 10) are printed, not enforced. */
export function reportPipeline({ single, bursts, burstCpu }: PipelineResults): void {
  console.log(
    `\nPipeline: request to checkout URL received by the platform (connector: ${SPLIT ? 'an api and a worker process' : 'one ROLE=all process'})`,
  );
  for (const side of ['connector', 'bare'] as const) {
    const values = single[side];
    console.log(
      `  one at a time   ${side.padEnd(10)} p50 ${fmt(percentile(values, 50), 0)} ms  p99 ${fmt(percentile(values, 99), 0)} ms  (${values.length} checkouts)`,
    );
  }
  console.log(`  connector p50 one at a time: target < 30 ms`);
  for (const size of BURSTS) {
    const c = bursts.connector[size] ?? [];
    const b = bursts.bare[size] ?? [];
    const ratios = c.map((ms, i) => safeRatio(b[i] ?? NaN, ms) ?? NaN);
    console.log(
      `  burst of ${String(size).padEnd(4)} connector ${fmt(median(c), 0).padStart(5)} ms  bare ${fmt(median(b), 0).padStart(5)} ms  throughput connector/bare: median ${fmt(median(ratios), 2)} of ${ratios.length} pairs (quartiles ${fmt(percentile(ratios, 25), 2)} to ${fmt(percentile(ratios, 75), 2)}; target >= 0.6)  CPU per checkout: connector ${fmt(median(burstCpu.connector[size] ?? []), 2)} ms, bare worker ${fmt(median(burstCpu.bare[size] ?? []), 2)} ms`,
    );
  }
}
