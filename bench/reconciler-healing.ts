/*
 * How soon the reconciler heals a lost webhook, in reconciler intervals: a checkout paid at the
 * provider whose webhook never comes, until the platform receives its finish. The design bounds
 * it by 2.3 intervals (due half an interval after it changed, the next pass within an interval,
 * reached within that pass's budget of 0.8 of one) plus the finish's delivery.
 *
 *   baseline: the paid checkout is the only one in the reconciler's line;
 *   loaded:   it is the newest of BENCH_OPEN open checkouts (default 10,000), all in line.
 *
 * Both run BENCH_REPS times (default 3) in the same process, on the same Redis and simulator;
 * the report gives each one's median in intervals, the loaded/baseline ratio, and the share of
 * the design bound the worst loaded run used. The test suite checks only that it heals at all
 * (test/integration/checkout/reconciler-at-scale.test.ts): a bound on time belongs here.
 *
 * Run: npm run bench:reconciler   (BENCH_INTERVAL_MS, default 3000)
 */
import { loadConfig } from '../src/config';
import { createLogger } from '../src/infra/logger';
import { startPrivateRedis } from '../src/demo/private-redis';
import { startConnector, type RunningConnector } from '../src/main/compose';
import type { SandboxProvider } from '../src/payments/sandbox/sandbox-provider';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../src/simulator/platform-simulator';
import { openSentCheckout, openSentCheckouts } from '../test/support/sent-checkouts';
import { median, safeRatio, showRatio } from './bench-support';

const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 3000);
const OPEN = Number(process.env.BENCH_OPEN ?? 10_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);
/** The design's bound, in intervals, before the finish's own delivery. */
const BOUND_INTERVALS = 2.3;
const FIRST_SERVICE = 100_001;

/** Pays a fresh checkout at the provider, with no webhook; ms until its finish arrives. */
async function healOnce(
  connector: RunningConnector,
  simulator: PlatformSimulator,
  serviceId: number,
): Promise<number> {
  const checkoutId = await openSentCheckout(connector, serviceId);
  await (connector.deps.provider as SandboxProvider).settle(checkoutId, 'paid');
  const paidAt = Date.now();
  const deadline = paidAt + 20 * INTERVAL_MS;
  while (Date.now() < deadline) {
    const finish = simulator
      .accepted('finish-checkout')
      .find((call) => call.serviceId === serviceId);
    if (finish) return Date.parse(finish.receivedAt) - paidAt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the finish of service ${serviceId} never came`);
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const simulator = new PlatformSimulator({
    firstServiceId: FIRST_SERVICE,
    serviceCount: OPEN + 2 * REPS + 10,
  });
  const platformUrl = await simulator.start();
  const connector = await startConnector(
    loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'bench-heal',
      PLATFORM_BASE_URL: platformUrl,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
      CHECKOUT_ROUTE_TOKEN: 'bench-route-token-0123456789',
      RECONCILE_INTERVAL_MS: String(INTERVAL_MS),
    }),
    {
      logger: createLogger({ level: 'warn', format: 'json', secrets: [] }),
      host: '127.0.0.1',
      exit: () => undefined,
    },
  );
  try {
    let next = FIRST_SERVICE + OPEN;
    const baseline: number[] = [];
    for (let rep = 0; rep < REPS; rep += 1) {
      baseline.push(await healOnce(connector, simulator, next++));
    }
    process.stdout.write(`opening ${OPEN} checkouts...\n`);
    await openSentCheckouts(connector, OPEN, FIRST_SERVICE);
    const loaded: number[] = [];
    for (let rep = 0; rep < REPS; rep += 1) {
      loaded.push(await healOnce(connector, simulator, next++));
    }
    const inIntervals = (ms: number) => ms / INTERVAL_MS;
    const show = (values: number[]) => values.map((ms) => inIntervals(ms).toFixed(2)).join(', ');
    process.stdout.write(
      [
        `reconciler healing (interval ${INTERVAL_MS} ms, ${REPS} runs each, in intervals)`,
        `  ${'baseline, alone in line:'.padEnd(32)}${show(baseline)}  median ${inIntervals(median(baseline)).toFixed(2)}`,
        `  ${`loaded, newest of ${OPEN}:`.padEnd(32)}${show(loaded)}  median ${inIntervals(median(loaded)).toFixed(2)}`,
        `  loaded / baseline (medians):    ${showRatio(safeRatio(median(loaded), median(baseline)))}`,
        `  worst loaded / design bound:    ${showRatio(safeRatio(inIntervals(Math.max(...loaded)), BOUND_INTERVALS))} (bound ${BOUND_INTERVALS} intervals, before the delivery)`,
      ].join('\n') + '\n',
    );
  } finally {
    await connector.shutdown.run('bench done');
    await simulator.stop();
    await redis.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
