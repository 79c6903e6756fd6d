/*
 * The connector's own payment page (a shop with a plan), side by side with what a shop without a
 * plan gets, in one run (alternating, the comparisons' order turning too, BENCH_REPS
 * repetitions, medians and the median of the per-repetition ratios):
 *
 *   page:     autocannon, 50 connections, BENCH_SECONDS each, against one connector process
 *             (ROLE=api, LOG_LEVEL=warn; the env shop on a deposit plan, the sandbox provider):
 *             `GET /pay/:id` of a planned checkout whose deposit is started (the record and its
 *             part checkout read from Redis, the page rendered), against the sandbox's own
 *             checkout page `GET /sandbox/checkout/:id` of a checkout made without a plan: the
 *             page a shop without a plan hands the platform. Both are customer pages behind the
 *             pages' rate limiter, raised out of reach (RATE_LIMIT_PAGES) but still counting.
 *   choices:  `POST /pay/:id/start` (`part=deposit&method=pix`, answered 303): the same choice
 *             again (it leads to the part checkout it opened: the steady state), and a new one
 *             (each request the first choice of a planned checkout of its own: a part checkout
 *             opened and created at the sandbox); each against the checkout route `POST
 *             /checkout` of the inbound benchmark (new services, the platform's token).
 *   memory:   the Redis bytes of an order (INFO's used_memory before and after, per order, each
 *             side on an emptied server, alternating, twice, the smaller; as bench/checkout-
 *             memory.ts), paid by card in 6 installments with its settlement and reported: on a
 *             plan, the planned checkout and its deposit's part checkout (started on the page,
 *             paid, the plan finished at its deposit); without, one checkout. Written by the
 *             connector's own use cases (requestCheckout, produceCheckout, startPart,
 *             recordOutcome, the delivery's `reported`) over its store, the platform, provider,
 *             queues and replica wait stubbed: the queues' jobs are not in it.
 *
 * The planned checkouts are made before the runs by the connector's own requestCheckout and
 * produceCheckout, in this process, against the platform simulator (a child process), with the
 * env shop's collaborators as the server builds them (the checkout without a plan the same way,
 * the SHOP_PLAN_* variables left out); the repeated choice's part checkout by the server itself.
 * No timed assertion: the figures are printed; the run exits 1 only if a request got another
 * answer than its route's (a ratio of failures would measure nothing).
 *
 * Run: npm run bench:plan   (BENCH_REPS=3 BENCH_SECONDS=5 BENCH_CHECKOUTS=5000 by default;
 * BENCH_PARTS=http or memory for one part)
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import type { CheckoutDeps } from '../src/checkout/checkout-deps';
import { newCheckoutId, type CheckoutRecord } from '../src/checkout/checkout-record';
import { startPart } from '../src/checkout/plan-checkout';
import { produceCheckout } from '../src/checkout/produce-checkout';
import { reconcileSchedule } from '../src/checkout/reconcile-schedule';
import { requestCheckout } from '../src/checkout/request-checkout';
import { recordOutcome } from '../src/checkout/settle-checkout';
import { loadConfig } from '../src/config';
import { freePort } from '../src/demo/free-port';
import { startPrivateRedis } from '../src/demo/private-redis';
import { createLogger } from '../src/infra/logger';
import { createDependencies, type Dependencies } from '../src/main/dependencies';
import { planDocumentSchema } from '../src/payments/payment-plan';
import {
  closeRedis,
  createRedis,
  waitForRedis,
  type ConnectorConnection,
  type RedisCommands,
} from '../src/redis/redis';
import { ENV_SHOP_ID } from '../src/shop/shop-id';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import { redisCheckoutPorts } from '../src/store/redis-checkout-ports';
import {
  cpuSeconds,
  median,
  safeRatio,
  showRatio,
  startChild,
  waitReady,
  type Child,
} from './bench-support';
import { startSimulatorProcess } from './simulator-process';

const REPS = Number(process.env.BENCH_REPS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Orders per side of the memory part. */
const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 5000);
/** `http`, `memory` or both (default). */
const PARTS = (process.env.BENCH_PARTS ?? 'http,memory').split(',');
const TOKEN = 'bench-plan-token-0123456789';
const PREFIX = 'bench-plan';
const CONNECTIONS = 50;
const WARM_SECONDS = 2;
/** Planned checkouts made at a time, before the runs. */
const SEED_CONCURRENCY = 50;
const RETENTION_DAYS = 180;

/** The env shop's plan and offer: the browser test's (test/e2e/plan-flow-browser.test.ts). */
const PLAN_ENV = {
  SHOP_PLAN_DEPOSIT_PERCENT: '30',
  SHOP_PLAN_BALANCE_DUE_DAYS: '20',
  SHOP_PLAN_SPLIT_TENDER: 'true',
};
const OFFER_ENV = { PAYMENT_METHODS: 'pix,card', CARD_MAX_INSTALLMENTS: '12' };
const CHOICE = 'part=deposit&method=pix';

type Side = 'measured' | 'baseline';

interface Run {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  /**
   * Redis commands run per request, from all its clients, those a script runs included (INFO's
   * total_commands_processed).
   */
  commandsPerRequest: number;
  requests: number;
  /** Answers other than the route's own (and errors, timeouts). */
  unexpected: number;
  /** Whether the run ran out of planned checkouts before its time (a new choice's). */
  capped: boolean;
}

/** A workload: the request each connection sends next, and the answer it must get. */
interface Workload {
  label: string;
  status: number;
  next: () => {
    method: 'GET' | 'POST';
    path: string;
    body?: string;
    headers?: Record<string, string>;
  };
  /** How many requests it has left, for one that uses each planned checkout once. */
  left?: () => number;
  /**
   * Makes what its next run of `seconds` may use at `pace` requests a second (the fastest of
   * its runs so far): before the warm-up and before each repetition, never while one is timed.
   */
  provide?: (seconds: number, pace: number | undefined) => Promise<void>;
}

interface Comparison {
  name: string;
  measured: Workload;
  baseline: Workload;
}

/** The connector under load: its base URL, its pid, and a connection that reads Redis's stats. */
interface Server {
  url: string;
  pid: number;
  stats: RedisCommands;
}

const commandsRun = async (redis: RedisCommands): Promise<number> =>
  Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1]);

const silentLogger = () => createLogger({ level: 'error', format: 'json', secrets: [] });

/** One autocannon run of `workload` against the connector. */
async function cannon(server: Server, workload: Workload, seconds: number): Promise<Run> {
  const cap = workload.left?.();
  const commandsBefore = await commandsRun(server.stats);
  const cpuBefore = cpuSeconds(server.pid);
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: seconds,
    ...(cap === undefined ? {} : { maxOverallRequests: cap }),
    requests: [{ setupRequest: (req) => ({ ...req, ...workload.next() }) }],
  });
  const cpu = cpuSeconds(server.pid) - cpuBefore;
  // The two reads of INFO count themselves.
  const commands = (await commandsRun(server.stats)) - commandsBefore - 2;
  const expected = result.statusCodeStats?.[`${workload.status}`]?.count ?? 0;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUsPerRequest: (cpu * 1e6) / Math.max(1, result.requests.total),
    commandsPerRequest: commands / Math.max(1, result.requests.total),
    requests: result.requests.total,
    unexpected: result.requests.total - expected + result.errors + result.timeouts,
    capped: cap !== undefined && result.requests.total >= cap,
  };
}

/** The variables of the connector (and of this process's collaborators of the same shop). */
function connectorEnv(redisUrl: string, simulatorUrl: string, publicUrl: string) {
  return {
    PLATFORM_BASE_URL: simulatorUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    NODE_ENV: 'production',
    SANDBOX_IN_PRODUCTION: 'true',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: PREFIX,
    CHECKOUT_ROUTE_TOKEN: TOKEN,
    PUBLIC_URL: publicUrl,
    LOG_LEVEL: 'warn',
    // The pages' limiter counts every request (a Redis round trip), and refuses none here.
    RATE_LIMIT_PAGES: '1000000000',
    ...OFFER_ENV,
    ...PLAN_ENV,
  };
}

/** The env shop's collaborators as the server builds them, from `env`, on this process. */
async function envShopOf(
  env: Record<string, string>,
  redis: ConnectorConnection,
): Promise<{ deps: CheckoutDeps; built: Dependencies }> {
  const config = loadConfig(env);
  const built = await createDependencies(config, {
    redis,
    logger: silentLogger(),
    publicUrl: config.publicUrl,
  });
  built.registry.stop();
  const shop = built.directory.cached(ENV_SHOP_ID);
  if (!shop) throw new Error('no env shop: set PLATFORM_EMAIL');
  return { deps: shop.deps, built };
}

/** A checkout of `serviceId` as the platform's request and its job make it; its id. */
async function madeCheckout(deps: CheckoutDeps, serviceId: number): Promise<string> {
  const requested = await requestCheckout(deps, serviceId);
  if (requested.kind !== 'accepted') throw new Error(`service ${serviceId}: ${requested.kind}`);
  const produced = await produceCheckout(deps, requested.checkoutId, requested.checkoutId);
  if (produced !== 'url_sent') throw new Error(`service ${serviceId}: ${produced}`);
  return requested.checkoutId;
}

/** Planned checkouts of services `from`.., SEED_CONCURRENCY at a time. */
async function seedParents(deps: CheckoutDeps, from: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  let next = from;
  const worker = async () => {
    while (next < from + count) ids.push(await madeCheckout(deps, next++));
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return ids;
}

/** The connector (ROLE=api) serving the env shop on its plan; its base URL and pid. */
async function startConnector(env: Record<string, string>, port: number, children: Child[]) {
  const api = await startChild(
    'src/main/server.ts',
    { ...env, ROLE: 'api', PORT: String(port) },
    /connector started|"level":"warn"/,
  );
  children.push(api.child);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url);
  return { url, pid: Number(api.child.process.pid) };
}

/** A choice's headers as a browser posts the page's form: from the page's own origin. */
const browserForm = (url: string) => ({
  'content-type': 'application/x-www-form-urlencoded',
  origin: url,
  'sec-fetch-site': 'same-origin',
});

/** The choice posted once, as a browser posts it: the part checkout it opened, at the sandbox. */
async function startOnce(url: string, parent: string): Promise<string> {
  const res = await fetch(`${url}/pay/${parent}/start`, {
    method: 'POST',
    headers: browserForm(url),
    body: CHOICE,
    redirect: 'manual',
  });
  const location = res.headers.get('location') ?? '';
  if (res.status !== 303 || !/\/sandbox\/checkout\/chk_/.test(location)) {
    throw new Error(`the choice was answered ${res.status} ${location}: ${await res.text()}`);
  }
  return location;
}

/**
 * The checkouts the runs use: the plain one, the planned one whose deposit is started, and the
 * planned ones each new choice uses once (`used` so far), made by `seed`.
 */
interface Made {
  plain: string;
  page: string;
  parents: string[];
  used: number;
  seed: (count: number) => Promise<void>;
}

/**
 * Planned checkouts left for new choices before a run: a quarter more than a run at `pace` would
 * use, at no less than PACE_FLOOR requests a second (this machine: 3,000; a warm-up's pace, still
 * cold, is too low a guess).
 */
const MARGIN = 1.25;
const PACE_FLOOR = 4000;

/** The three comparisons, over the checkouts made for them. */
function comparisons(made: Made, url: string): Comparison[] {
  let nextService = 500_000;
  const form = browserForm(url);
  const route: Workload = {
    label: 'POST /checkout (new services)',
    status: 202,
    next: () => ({
      method: 'POST',
      path: '/checkout',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ service_id: nextService++ }),
    }),
  };
  return [
    {
      name: 'the page',
      measured: {
        label: 'GET /pay/:id (deposit started)',
        status: 200,
        next: () => ({ method: 'GET', path: `/pay/${made.page}` }),
      },
      baseline: {
        label: 'GET /sandbox/checkout/:id (no plan)',
        status: 200,
        next: () => ({ method: 'GET', path: `/sandbox/checkout/${made.plain}` }),
      },
    },
    {
      name: 'a repeated choice',
      measured: {
        label: 'POST /pay/:id/start (the same choice)',
        status: 303,
        next: () => ({
          method: 'POST',
          path: `/pay/${made.page}/start`,
          headers: form,
          body: CHOICE,
        }),
      },
      baseline: route,
    },
    {
      name: 'a new choice',
      measured: {
        label: 'POST /pay/:id/start (a new part checkout)',
        status: 303,
        next: () => {
          // Past the last planned checkout (never, with the margin made), the last one again:
          // the run is then reported as capped.
          const parent = made.parents[Math.min(made.used++, made.parents.length - 1)];
          return { method: 'POST', path: `/pay/${parent}/start`, headers: form, body: CHOICE };
        },
        left: () => Math.max(CONNECTIONS, made.parents.length - made.used),
        provide: async (seconds, pace = 0) => {
          const needed = Math.ceil(MARGIN * Math.max(pace, PACE_FLOOR) * seconds) + CONNECTIONS;
          const left = made.parents.length - made.used;
          if (left < needed) await made.seed(needed - left);
        },
      },
      baseline: route,
    },
  ];
}

type Results = Map<string, Record<Side, Run[]>>;

/**
 * REPS repetitions of every comparison, which side goes first turning each time, and which
 * comparison goes first too (none always runs after the same one).
 */
async function runHttp(server: Server, list: Comparison[]): Promise<Results> {
  const workloads = [...new Set(list.flatMap(({ measured, baseline }) => [measured, baseline]))];
  const pace = new Map<Workload, number>();
  const timed = async (workload: Workload, seconds: number) => {
    const run = await cannon(server, workload, seconds);
    pace.set(workload, Math.max(pace.get(workload) ?? 0, run.rps));
    return run;
  };
  const provide = async (seconds: number) => {
    for (const workload of workloads) await workload.provide?.(seconds, pace.get(workload));
  };
  // Warm-up: JIT, connections, scripts loaded; not counted.
  await provide(WARM_SECONDS);
  for (const workload of workloads) await timed(workload, WARM_SECONDS);
  const results: Results = new Map();
  for (let rep = 0; rep < REPS; rep++) {
    await provide(SECONDS);
    const order = [...list.slice(rep % list.length), ...list.slice(0, rep % list.length)];
    for (const comparison of order) {
      const sides: Side[] = rep % 2 === 0 ? ['measured', 'baseline'] : ['baseline', 'measured'];
      for (const side of sides) {
        const run = await timed(comparison[side], SECONDS);
        const runs = results.get(comparison.name) ?? { measured: [], baseline: [] };
        runs[side].push(run);
        results.set(comparison.name, runs);
      }
    }
  }
  return results;
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const m = (runs: Run[], key: keyof Run) => median(runs.map((r) => Number(r[key])));

function sideLine(workload: Workload, runs: Run[]): string {
  const unexpected = runs.reduce((sum, r) => sum + r.unexpected, 0);
  const capped = runs.filter((r) => r.capped).length;
  return `    ${workload.label.padEnd(44)} ${fmt(m(runs, 'rps'), 0).padStart(6)} req/s  p50 ${fmt(m(runs, 'p50'), 0)} ms  p99 ${fmt(m(runs, 'p99'), 0)} ms  CPU ${fmt(m(runs, 'cpuUsPerRequest'), 0)} us/request (each rep: ${runs.map((r) => fmt(r.cpuUsPerRequest, 0)).join(', ')})  Redis commands ${fmt(m(runs, 'commandsPerRequest'), 1)}/request  other answers/errors ${unexpected}${capped ? `  (${capped} runs ran out of planned checkouts)` : ''}`;
}

/** The HTTP part's lines of the report; answers whether every request got its route's answer. */
function reportHttp(list: Comparison[], results: Results): boolean {
  console.log(`\nPages and choices (autocannon, ${CONNECTIONS} connections, ${SECONDS} s each):`);
  let clean = true;
  for (const comparison of list) {
    const runs = results.get(comparison.name);
    if (!runs) continue;
    const { measured: p, baseline: b } = runs;
    const ratios = p.map((run, i) => safeRatio(run.rps, b[i]?.rps ?? NaN) ?? NaN);
    const ratioOf = (key: keyof Run) => showRatio(safeRatio(m(p, key), m(b, key)));
    console.log(`  ${comparison.name}`);
    console.log(sideLine(comparison.measured, p));
    console.log(sideLine(comparison.baseline, b));
    console.log(
      `    throughput plan/baseline: median ${fmt(median(ratios), 2)} (each rep: ${ratios.map((r) => fmt(r, 2)).join(', ')})   p99 plan/baseline: ${ratioOf('p99')}   CPU per request plan/baseline: ${ratioOf('cpuUsPerRequest')}`,
    );
    if ([...p, ...b].some((run) => run.unexpected > 0)) clean = false;
  }
  return clean;
}

/** What the runs left behind, read back: each new choice made a part checkout of its own. */
async function checkParts(deps: CheckoutDeps, made: Made): Promise<string> {
  const page = await deps.store.get(made.page);
  const sample = made.parents.slice(0, Math.min(made.used, 200));
  const read = await Promise.all(sample.map((id) => deps.store.get(id)));
  const one = read.filter((record) => record?.partCheckouts?.length === 1).length;
  return `the repeated choice's checkout has ${page?.partCheckouts?.length ?? 0} part checkout(s); of the first ${sample.length} used by new choices, ${one} have exactly one`;
}

async function measureHttp(): Promise<boolean> {
  const redis = await startPrivateRedis();
  // Services are made up on demand: plenty for every planned checkout of the run.
  const simulator = await startSimulatorProcess(1_000_000);
  const children: Child[] = [];
  const producer = createRedis(redis.url, 'producer', 'bench-plan-seed');
  const opened: Dependencies[] = [];
  try {
    if (!(await waitForRedis(producer, 10_000))) throw new Error('no private Redis');
    const port = await freePort();
    const env = connectorEnv(redis.url, simulator.url, `http://127.0.0.1:${port}`);
    const withoutPlan = Object.fromEntries(
      Object.entries(env).filter(([name]) => !(name in PLAN_ENV)),
    );
    const planned = await envShopOf(env, producer);
    const plain = await envShopOf(withoutPlan, producer);
    opened.push(planned.built, plain.built);
    if (!planned.deps.plan || plain.deps.plan) throw new Error('the plan is not as meant');
    const server = { ...(await startConnector(env, port, children)), stats: producer };
    // The simulator's services are 1001 and up.
    const first = 1001;
    let nextService = first + 2;
    const seeding = { ms: 0 };
    const made: Made = {
      plain: await madeCheckout(plain.deps, first),
      page: await madeCheckout(planned.deps, first + 1),
      parents: [],
      used: 0,
      seed: async (count) => {
        const began = Date.now();
        made.parents.push(...(await seedParents(planned.deps, nextService, count)));
        nextService += count;
        seeding.ms += Date.now() - began;
      },
    };
    await startOnce(server.url, made.page);
    const list = comparisons(made, server.url);
    const results = await runHttp(server, list);
    console.log(
      `\nPayment page benchmark: ${REPS} repetitions alternating, medians; ${cpus().length} cores, Node ${process.version}; the env shop on a plan (deposit ${PLAN_ENV.SHOP_PLAN_DEPOSIT_PERCENT}%, split tender), ${OFFER_ENV.PAYMENT_METHODS}, the sandbox provider`,
    );
    console.log(
      `  planned checkouts made for new choices (before the warm-up and each repetition, by requestCheckout and produceCheckout, untimed): ${made.parents.length}, ${fmt((made.parents.length * 1000) / Math.max(1, seeding.ms), 0)} a second; used ${made.used}`,
    );
    const clean = reportHttp(list, results);
    console.log(`  read back: ${await checkParts(planned.deps, made)}`);
    return clean;
  } finally {
    for (const child of children) await child.stop();
    for (const built of opened) {
      await Promise.all([
        ...built.queues.map((queue) => queue.close()),
        built.providerJobs.close(),
      ]);
    }
    await closeRedis(producer);
    simulator.stop();
    await redis.close();
  }
}

// The memory part: the connector's use cases over its store, the outside world stubbed.

const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });
const LINES = [
  { label: 'MDF Branco TX 15mm — 12 peças', amountMinor: 38_990 },
  { label: 'Fita de borda PVC 22mm — 40 m', amountMinor: 9_545 },
  { label: 'Furação e usinagem', amountMinor: 4_500 },
];
const ORDER = BRL(53_035);

/** One shop's collaborators on `redis`: its store and line real, the rest answering at once. */
function storeDeps(redis: RedisCommands, withPlan: boolean): CheckoutDeps {
  const ports = redisCheckoutPorts(redis, PREFIX, ENV_SHOP_ID, ENV_SHOP_ID, {
    retentionMs: RETENTION_DAYS * 86_400_000,
  });
  const idle = async () => undefined;
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const deps = {
    shop: ENV_SHOP_ID,
    ...ports,
    schedule: reconcileSchedule(60_000),
    jobs: { produce: idle, scheduleExpiry: idle, scheduleExpiries: idle, notify: idle },
    platform: {
      getService: async () => ({ found: true, service: {} }),
      postCheckoutUrl: idle,
    },
    // As Mercado Pago's references and URLs are (bench/checkout-memory.ts).
    provider: {
      name: 'mercadopago',
      createCheckout: async () => {
        const ref = `${randomBytes(4).readUInt32BE()}-${randomBytes(16).toString('hex')}`;
        return {
          providerRef: ref,
          url: `https://www.mercadopago.com.br/checkout/v1/redirect?pref_id=${ref}`,
        };
      },
    },
    amountSource: async () => ({ amount: ORDER, lines: LINES }),
    offered: { methods: ['pix', 'card'], maxInstallments: 12 },
    ...(withPlan
      ? {
          plan: planDocumentSchema.parse({
            deposit: { percent: 30 },
            balanceDueDays: 20,
            splitTender: true,
          }),
        }
      : {}),
    currency: 'BRL',
    publicUrl: 'https://conector.moveis-aurora.com.br',
    expiryMs: 3_600_000,
    clock: () => new Date(),
    newCheckoutId: () => newCheckoutId(),
    log,
    replication: { held: idle },
  };
  return deps as unknown as CheckoutDeps;
}

/** Paid by card in 6 installments, with the settlement Mercado Pago reports. */
function paidByCard(record: CheckoutRecord, serviceId: number) {
  const amount = record.amount?.amountMinor ?? 0;
  const interestMinor = Math.round(amount * 0.09);
  const collectedMinor = amount + interestMinor;
  const providerFee = Math.round(collectedMinor * 0.0457);
  return {
    transactionId: String(100_000_000_000 + serviceId),
    method: 'card' as const,
    collectedMinor,
    interestMinor,
    settlement: {
      providerFee: BRL(providerFee),
      net: BRL(collectedMinor - providerFee),
      releaseDate: '2027-01-04',
      installments: 6,
    },
  };
}

/** One order, opened, paid and reported: with a plan, its deposit paid on the page. */
async function paidOrder(deps: CheckoutDeps, serviceId: number): Promise<void> {
  const checkoutId = await madeCheckout(deps, serviceId);
  let paying = checkoutId;
  if (deps.plan) {
    const started = await startPart(deps, checkoutId, { part: 'deposit', method: 'card' });
    if (started.kind !== 'redirect')
      throw new Error(`the deposit was not started: ${started.kind}`);
    paying = started.partCheckout;
  }
  const record = await deps.store.get(paying);
  if (!record) throw new Error(`no checkout ${paying}`);
  // The part's outcome moves its plan on: paid at its deposit, its one finish queued.
  await recordOutcome(deps, record, 'paid', paidByCard(record, serviceId));
  // The finish delivered (src/delivery/deliver-notification.ts).
  const now = deps.clock();
  await deps.store.transition(checkoutId, 'reported', {}, now, deps.schedule.firstLookAt(now));
  const reported = await deps.store.get(checkoutId);
  if (reported?.state !== 'reported') throw new Error(`${checkoutId} is ${reported?.state}`);
}

async function usedMemory(redis: RedisCommands): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

/** Bytes per order of one side, on an emptied server. */
async function bytesPerOrder(redis: RedisCommands, withPlan: boolean): Promise<number> {
  await redis.flushall();
  const deps = storeDeps(redis, withPlan);
  const before = await usedMemory(redis);
  for (let i = 0; i < CHECKOUTS; i += 1) await paidOrder(deps, 100_000 + i);
  return ((await usedMemory(redis)) - before) / CHECKOUTS;
}

async function measureMemory(): Promise<void> {
  const server = await startPrivateRedis();
  const redis = createRedis(server.url, 'worker', 'bench-plan-memory');
  try {
    await waitForRedis(redis, 10_000);
    // Alternating, twice each: the allocator settles after the first fill.
    const plain: number[] = [];
    const planned: number[] = [];
    for (let rep = 0; rep < 2; rep += 1) {
      plain.push(await bytesPerOrder(redis, false));
      planned.push(await bytesPerOrder(redis, true));
    }
    const without = Math.min(...plain);
    const withPlan = Math.min(...planned);
    console.log(
      `\nRedis memory per order (used_memory, ${CHECKOUTS} orders a side, the smaller of 2):`,
    );
    console.log(`  without a plan, one checkout paid and reported: ${without.toFixed(0)} bytes`);
    console.log(
      `  on a plan, the planned checkout and its deposit's part checkout, paid and reported: ${withPlan.toFixed(0)} bytes`,
    );
    console.log(`  ratio plan/without: ${showRatio(safeRatio(withPlan, without))}`);
    console.log(
      `  each run: without ${plain.map((b) => b.toFixed(0)).join(', ')}; on a plan ${planned.map((b) => b.toFixed(0)).join(', ')}`,
    );
  } finally {
    await closeRedis(redis);
    await server.close();
  }
}

async function main(): Promise<void> {
  const clean = PARTS.includes('http') ? await measureHttp() : true;
  if (PARTS.includes('memory')) await measureMemory();
  if (!clean) {
    console.log(
      "\nSome requests got another answer than their route's: the figures above are not a measure.",
    );
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
