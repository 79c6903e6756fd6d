/*
 * Delivery throughput and latency: the connector's notification pipeline (delivered-record,
 * supersession check, answer table, metrics, state transition) against a bare BullMQ worker
 * making the same POST, in the same run, on the same Redis and simulator. The simulator runs
 * in a child process so it does not share this process's CPU.
 *
 *   burst:     N notifications enqueued at once; deliveries per second.
 *   unloaded:  one notification at a time; ms from enqueue (outcome accepted) to the
 *              platform receiving it, p50 and p99.
 *
 * The two run alternately BENCH_REPS times (default 3), both set up before the first; the report
 * gives the medians and the median of the per-repetition ratios.
 *
 * Run: npm run bench:delivery
 */
import { newCheckoutId } from '../src/checkout/checkout-record';
import axios from 'axios';
import { Queue, Worker } from 'bullmq';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/infra/logger';
import { startPrivateRedis } from '../src/demo/private-redis';
import { redisOptions } from '../src/redis/redis';
import { startConnector } from '../src/main/compose';
import { median, percentile, safeRatio, showRatio } from './bench-support';
import { startSimulatorProcess } from './simulator-process';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';

const BURST = Number(process.env.BENCH_BURST ?? 1000);
const UNLOADED = Number(process.env.BENCH_UNLOADED ?? 100);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const CONCURRENCY = 10;

type Received = {
  serviceId: number;
  receivedAt: string;
  endpoint: string;
  body: { transaction_id?: string };
};

async function received(simulatorUrl: string): Promise<Map<string, number>> {
  const { data } = await axios.get<{ payments: Received[] }>(`${simulatorUrl}/__simulator/calls`);
  return new Map(
    data.payments
      .filter((p) => p.endpoint === 'finish-checkout')
      .map((p) => [p.body.transaction_id ?? '', Date.parse(p.receivedAt)]),
  );
}

interface Runner {
  /** Work that comes before an outcome is accepted (the connector's checkout record): not timed. */
  prepare?(tag: string, serviceId: number): Promise<void>;
  enqueue(tag: string, serviceId: number): Promise<number>;
  drained(): Promise<void>;
}

async function measure(label: string, runner: Runner, simulatorUrl: string) {
  const burst = Array.from(
    { length: BURST },
    (_, i) => [`${label}-b${i}`, 1001 + (i % 4000)] as const,
  );
  for (const [tag, serviceId] of burst) await runner.prepare?.(tag, serviceId);
  for (let i = 0; i < UNLOADED; i += 1) await runner.prepare?.(`${label}-u${i}`, 1001 + i);
  const burstStarted = Date.now();
  await Promise.all(burst.map(([tag, serviceId]) => runner.enqueue(tag, serviceId)));
  await runner.drained();
  const seconds = (Date.now() - burstStarted) / 1000;
  const enqueuedAt = new Map<string, number>();
  for (let i = 0; i < UNLOADED; i += 1) {
    const tag = `${label}-u${i}`;
    enqueuedAt.set(tag, await runner.enqueue(tag, 1001 + i));
    await runner.drained();
  }
  const arrivals = await received(simulatorUrl);
  const latencies = [...enqueuedAt].map(([tag, at]) => (arrivals.get(tag) ?? NaN) - at);
  const delivered = [...arrivals.keys()].filter((tag) => tag.startsWith(`${label}-`)).length;
  return {
    label,
    delivered,
    perSecond: BURST / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const simulator = await startSimulatorProcess(REPS * (BURST + UNLOADED) + 100);
  const auth = {
    authorization: `Basic ${Buffer.from(`${DEMO_CREDENTIALS.email}:${DEMO_CREDENTIALS.password}`).toString('base64')}`,
    'x-dreamfactory-api-key': DEMO_CREDENTIALS.apiKey,
  };
  try {
    // Baseline: a bare BullMQ worker making the same POST.
    const bareQueue = new Queue('bare', {
      connection: redisOptions(redis.url, 'producer'),
      prefix: 'bench',
    });
    const http = axios.create({ baseURL: simulator.url, headers: auth, timeout: 10_000 });
    const bareWorker = new Worker(
      'bare',
      async (job) => {
        await http.post(
          '/payment/finish-checkout',
          { service_id: job.data.serviceId, transaction_id: job.data.tag },
          { headers: { 'idempotency-key': job.data.tag } },
        );
      },
      { connection: redisOptions(redis.url, 'worker'), prefix: 'bench', concurrency: CONCURRENCY },
    );
    const drained = (queue: Queue) => async () => {
      while ((await queue.getJobCountByTypes('wait', 'active', 'delayed', 'prioritized')) > 0)
        await new Promise((r) => setTimeout(r, 2));
    };
    const bareRunner: Runner = {
      enqueue: async (tag, serviceId) => {
        const job = await bareQueue.add(
          'finish',
          { tag, serviceId },
          { removeOnComplete: true, attempts: 3 },
        );
        return job.timestamp;
      },
      drained: drained(bareQueue),
    };

    // The connector's pipeline.
    const config = loadConfig({
      NODE_ENV: 'production',
      // The sandbox is only the provider of record here: production mode as on a staging platform.
      SANDBOX_IN_PRODUCTION: 'true',
      PORT: '0',
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'bench-connector',
      PLATFORM_BASE_URL: simulator.url,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
      CHECKOUT_ROUTE_TOKEN: 'bench-token-0123456789',
      LOG_LEVEL: 'warn',
    });
    const connector = await startConnector(config, {
      logger: createLogger({ level: 'warn', format: 'json', secrets: [] }),
      host: '127.0.0.1',
      exit: () => undefined,
    });
    let nextService = 0;
    const checkouts = new Map<string, string>();
    const connectorRunner: Runner = {
      // The job names the checkout only; its record (paid, with the transaction) is written
      // first, untimed. A service of its own per checkout: one checkout each.
      prepare: async (tag) => {
        const checkoutId = newCheckoutId();
        const now = new Date();
        await connector.deps.store.openForService({
          checkoutId,
          serviceId: 1001 + nextService++,
          provider: 'sandbox',
          now,
          expiresAt: new Date(now.getTime() + 3_600_000),
          lookAt: connector.deps.schedule.firstLookAt(now),
        });
        const lookAt = connector.deps.schedule.firstLookAt(now);
        await connector.deps.store.transition(
          checkoutId,
          'paid',
          { transactionId: tag },
          now,
          lookAt,
        );
        checkouts.set(tag, checkoutId);
      },
      enqueue: async (tag) => {
        const at = Date.now();
        await connector.deps.jobs.notify({
          checkoutId: checkouts.get(tag) ?? '',
          kind: 'finish',
        });
        return at;
      },
      drained: drained(connector.jobs.notificationQueue),
    };

    type Measured = Awaited<ReturnType<typeof measure>>;
    const runs: Record<'bare' | 'connector', Measured[]> = { bare: [], connector: [] };
    for (let rep = 0; rep < REPS; rep++) {
      const order =
        rep % 2 === 0 ? (['bare', 'connector'] as const) : (['connector', 'bare'] as const);
      for (const side of order) {
        const runner = side === 'bare' ? bareRunner : connectorRunner;
        runs[side].push(await measure(`${side}-r${rep}`, runner, simulator.url));
      }
    }
    await bareWorker.close();
    await bareQueue.close();
    await connector.shutdown.run('bench done');

    console.log(`\nDelivery: ${REPS} repetitions alternating, medians`);
    for (const side of ['bare', 'connector'] as const) {
      const r = runs[side];
      console.log(
        `${side.padEnd(10)} burst ${BURST}: ${median(r.map((m) => m.perSecond))
          .toFixed(0)
          .padStart(
            5,
          )} deliveries/s   unloaded (${UNLOADED}): p50 ${median(r.map((m) => m.p50))} ms, p99 ${median(r.map((m) => m.p99))} ms   delivered ${r.reduce((n, m) => n + m.delivered, 0)}/${REPS * (BURST + UNLOADED)}`,
      );
    }
    const ratios = runs.connector.map(
      (m, i) => safeRatio(m.perSecond, runs.bare[i]?.perSecond ?? NaN) ?? NaN,
    );
    console.log(
      `ratio (connector / bare worker): median ${showRatio(median(ratios))} (each rep: ${ratios.map((r) => showRatio(r)).join(', ')}; target >= 0.80); connector p99 unloaded ${median(runs.connector.map((m) => m.p99))} ms (target < 100 ms)`,
    );
  } finally {
    simulator.stop();
    await redis.close();
  }
}

void main();
