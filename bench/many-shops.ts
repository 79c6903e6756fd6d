/*
 * Many shops in one deployment, against one shop, side by side in one run (alternating,
 * BENCH_REPS repetitions, the median):
 *
 *   one shop:   a connector process (ROLE=api) serving the env shop alone; autocannon, 50
 *               connections, BENCH_SECONDS each, on its route `/checkout`, each request a
 *               service of its own.
 *   many shops: a connector process (ROLE=api) with the env shop and BENCH_SHOPS (1,000) shops
 *               in the registry (added through ShopAdmin, as `connector shops add` does: each
 *               checked against the platform simulator, sealed, stored), every one of them
 *               served once before measuring, then the requests spread round-robin over
 *               BENCH_SPREAD (100) of them, each on its own route `/shops/<id>/checkout` with
 *               its own token.
 *
 * Both with the image's NODE_OPTIONS (the Dockerfile's) and at LOG_LEVEL=info, as deployed:
 * each request writes its "checkout requested" line, and the many-shops process's logger scrubs every line for the secrets of all the shops it opened
 * (the registry hands each shop's platform password, API key and Basic credentials to the logger
 * as it opens it; the bench checks the process said "shop served" for every one). The platform
 * accounts' password and key are random, of realistic lengths (20 and 32 characters).
 *
 * Reported: requests per second and their ratio (target >= 0.9), p99, and each process's
 * resident memory after its runs (target: many shops at most 50 MB above one shop). Exits 1
 * when a target is missed.
 * On a small machine the load generator, the connector and Redis share the cores, and one
 * repetition's ratio swings by 0.2 either way: hence many short repetitions, and the quartiles.
 * Run: npm run bench:shops   (BENCH_REPS=8 BENCH_SECONDS=4 BENCH_SHOPS=1000 BENCH_SPREAD=100
 * BENCH_LOG_LEVEL=info BENCH_NODE_OPTIONS=<the Dockerfile's>)
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import autocannon from 'autocannon';
import { readConfig, shopsConfig } from '../src/config';
import { freePort } from '../src/demo/free-port';
import { serverPid, startPrivateRedis } from '../src/demo/private-redis';
import { cliAdapters } from '../src/main/cli-adapters';
import { newKeyringEntry } from '../src/secrets/secret-box';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import {
  apiNodeOptions,
  cpuSeconds,
  median,
  percentile,
  reportTargets,
  safeRatio,
  showRatio,
  startChild,
  waitReady,
  type Child,
} from './bench-support';
import { startSimulatorProcess } from './simulator-process';

const REPS = Number(process.env.BENCH_REPS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const SHOPS = Number(process.env.BENCH_SHOPS ?? 1000);
const SPREAD = Math.min(SHOPS, Number(process.env.BENCH_SPREAD ?? 100));
const TOKEN = 'bench-route-token-0123456789';
/** Both processes'; info (as deployed) makes every request write a line, to be scrubbed. */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
/** Both processes' Node options: the api's, as deployed (BENCH_NODE_OPTIONS overrides). */
const NODE_OPTIONS = apiNodeOptions();

interface Run {
  rps: number;
  p99: number;
  errors: number;
  /** CPU microseconds per request: the connector process, Redis, and autocannon (this one). */
  cpu: { server: number; redis: number; client: number };
  /** The connector's garbage collection, microseconds per request, by kind (its /metrics). */
  gc: Record<string, number>;
}

/** Seconds the process spent collecting garbage so far, by kind (prom-client's default metric). */
async function gcSeconds(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const seconds: Record<string, number> = {};
  for (const [, kind, value] of text.matchAll(
    /^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} (\S+)$/gm,
  ))
    seconds[kind ?? ''] = Number(value);
  return seconds;
}

/** Resident memory of a process, in MB (VmRSS from /proc, Linux). */
function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? NaN) / 1024;
}

/** autocannon with a body (and path and token) chosen per request. */
async function cannon(
  base: string,
  next: () => { path: string; token: string; body: string },
  seconds: number,
  pids: { server: number; redis: number },
): Promise<Run> {
  const before = {
    server: cpuSeconds(pids.server),
    redis: cpuSeconds(pids.redis),
    client: process.cpuUsage(),
    gc: await gcSeconds(base),
  };
  const result = await autocannon({
    url: base,
    method: 'POST',
    connections: 50,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => {
          const { path, token, body } = next();
          return {
            ...req,
            path,
            body,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          };
        },
      },
    ],
  });
  const total = Math.max(1, result.requests.total);
  const client = process.cpuUsage(before.client);
  const gcAfter = await gcSeconds(base);
  const gc = Object.fromEntries(
    Object.entries(gcAfter).map(([kind, s]) => [
      kind,
      ((s - (before.gc[kind] ?? 0)) * 1e6) / total,
    ]),
  );
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpu: {
      server: ((cpuSeconds(pids.server) - before.server) * 1e6) / total,
      redis: ((cpuSeconds(pids.redis) - before.redis) * 1e6) / total,
      client: (client.user + client.system) / total,
    },
    gc,
  };
}

/** Where the registry's CLI log goes: nowhere (it says nothing unless something fails). */
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });

/** Registers `count` sandbox shops, each with a simulator account; answers their route tokens. */
async function registerShops(env: Record<string, string>, count: number): Promise<string[]> {
  const config = readConfig(shopsConfig({ keys: true, platform: true }), env);
  const { admin, close } = await cliAdapters.openShops({ ...config, stderr: quiet });
  const tokens: string[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const id = `loja-${String(i).padStart(4, '0')}`;
      // Random, of realistic lengths: these are what the connector's logger scrubs for.
      const platform = {
        email: `financeiro@${id}.bench.example.com.br`,
        password: randomKey(20),
        apiKey: randomKey(32),
      };
      const added = await fetch(`${env.PLATFORM_BASE_URL}/__simulator/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(platform),
      });
      if (added.status !== 201) throw new Error(`simulator account: ${added.status}`);
      const shop = await admin.add(
        { id, name: `Loja ${i}`, platform, provider: { name: 'sandbox' } },
        'bench',
      );
      tokens.push(shop.checkout_route.token);
    }
  } finally {
    await close();
  }
  return tokens;
}

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomKey = (length: number) =>
  Array.from({ length }, () => KEY_CHARS[randomInt(KEY_CHARS.length)]).join('');

const countServed = (output: string) => output.match(/"shop served"/g)?.length ?? 0;

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const simulator = await startSimulatorProcess(100).catch(async (error: unknown) => {
    await redis.close();
    throw error;
  });
  const children: Child[] = [];
  const keys = newKeyringEntry('bench');
  const common = {
    NODE_ENV: 'production',
    SANDBOX_IN_PRODUCTION: 'true',
    REDIS_URL: redis.url,
    LOG_LEVEL: LOG_LEVEL,
    ROLE: 'api',
    PLATFORM_BASE_URL: simulator.url,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_TOKEN: TOKEN,
    ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
  };
  try {
    const redisPid = await serverPid(Number(new URL(redis.url).port));
    if (redisPid === undefined) throw new Error('the private Redis does not say its pid');
    const registeredAt = Date.now();
    const tokens = await registerShops(
      { ...common, QUEUE_PREFIX: 'bench-many', SHOP_SECRET_KEYS: keys },
      SHOPS,
    );
    const registerMs = Date.now() - registeredAt;

    const start = async (label: string, env: Record<string, string>) => {
      const port = await freePort();
      const started = await startChild(
        'src/main/server.ts',
        { ...common, ...env, PORT: String(port) },
        /connector started|"level":"warn"/,
      );
      children.push(started.child);
      const url = `http://127.0.0.1:${port}`;
      await waitReady(url);
      const pids = { server: Number(started.child.process.pid), redis: redisPid };
      return { label, url, pids, child: started.child };
    };
    const loadStarted = Date.now();
    const many = await start('many shops', { QUEUE_PREFIX: 'bench-many', SHOP_SECRET_KEYS: keys });
    const manyStartMs = Date.now() - loadStarted;
    const startRss = rssMb(many.pids.server);
    // The registry says "shop served" (info) once it has handed a shop's secrets to the logger.
    const served = LOG_LEVEL === 'info' ? countServed(many.child.output()) : SHOPS;
    if (served !== SHOPS)
      throw new Error(`${served} of ${SHOPS} shops opened (said "shop served")`);
    const one = await start('one shop', { QUEUE_PREFIX: 'bench-one' });

    let nextService = 100_000;
    const fresh = () => JSON.stringify({ service_id: nextService++ });
    let turn = 0;
    const requests = {
      'one shop': () => ({ path: '/checkout', token: TOKEN, body: fresh() }),
      'many shops': () => {
        const shop = turn++ % SPREAD;
        return {
          path: `/shops/loja-${String(shop).padStart(4, '0')}/checkout`,
          token: tokens[shop] ?? '',
          body: fresh(),
        };
      },
    };
    // Warm-up, not counted: JIT, connections, scripts; every registered shop served once.
    await cannon(one.url, requests['one shop'], 2, one.pids);
    for (let shop = 0; shop < SHOPS; shop++) {
      const response = await fetch(
        `${many.url}/shops/loja-${String(shop).padStart(4, '0')}/checkout`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${tokens[shop] ?? ''}`,
          },
          body: fresh(),
        },
      );
      if (response.status !== 202) throw new Error(`shop ${shop}: ${response.status}`);
      await response.arrayBuffer();
    }
    await cannon(many.url, requests['many shops'], 2, many.pids);

    const runs: Record<string, Run[]> = { 'one shop': [], 'many shops': [] };
    const rss: Record<string, number[]> = { 'one shop': [], 'many shops': [] };
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? [one, many] : [many, one];
      for (const side of order) {
        runs[side.label]?.push(
          await cannon(side.url, requests[side.label as keyof typeof requests], SECONDS, side.pids),
        );
        rss[side.label]?.push(rssMb(side.pids.server));
      }
    }

    const ratios = (runs['many shops'] ?? []).map(
      (run, i) => safeRatio(run.rps, runs['one shop']?.[i]?.rps ?? NaN) ?? NaN,
    );
    const rssDelta = median(rss['many shops'] ?? []) - median(rss['one shop'] ?? []);
    console.log(
      `\nMany shops: ${REPS} repetitions alternating, medians; autocannon, 50 connections, ${SECONDS} s each; Node ${process.version}, NODE_OPTIONS '${NODE_OPTIONS}' on both`,
    );
    console.log(
      `  ${SHOPS} shops registered in ${fmt(registerMs / 1000, 1)} s (each checked with the platform, sealed, stored); the process serving them started in ${fmt(manyStartMs / 1000, 1)} s, ${fmt(startRss)} MB resident`,
    );
    for (const label of ['one shop', 'many shops'] as const) {
      const list = runs[label] ?? [];
      console.log(
        `  ${label.padEnd(10)} ${fmt(median(list.map((r) => r.rps))).padStart(6)} req/s  p99 ${fmt(median(list.map((r) => r.p99)))} ms  RSS ${fmt(median(rss[label] ?? []))} MB  CPU us/request: connector ${fmt(median(list.map((r) => r.cpu.server)))}, redis ${fmt(median(list.map((r) => r.cpu.redis)))}, autocannon ${fmt(median(list.map((r) => r.cpu.client)))}  non-2xx/errors ${list.reduce((sum, r) => sum + r.errors, 0)}`,
      );
      console.log(
        `  ${''.padEnd(10)} its garbage collection, us/request: ${[
          'minor',
          'incremental',
          'major',
          'weakcb',
        ]
          .map((kind) => `${kind} ${fmt(median(list.map((r) => r.gc[kind] ?? 0)), 1)}`)
          .join(', ')}`,
      );
    }
    console.log(
      `  throughput many/one: median ${showRatio(median(ratios))}, quartiles ${showRatio(percentile(ratios, 25))} to ${showRatio(percentile(ratios, 75))} (each rep: ${ratios.map((r) => showRatio(r)).join(', ')}; target >= 0.9), requests spread over ${SPREAD} of ${SHOPS} shops`,
    );
    console.log(
      `  resident memory many - one: ${fmt(rssDelta, 1)} MB (target <= 50 MB), every one of the ${SHOPS} shops served at least once`,
    );
    console.log(
      `  LOG_LEVEL=${LOG_LEVEL} on both; the many-shops logger scrubs every line for the secrets of all ${SHOPS} shops (${served} opened at start)`,
    );
    reportTargets([
      { name: `throughput many/one at least 0.9 (median)`, met: median(ratios) >= 0.9 },
      { name: `resident memory many - one at most 50 MB`, met: rssDelta <= 50 },
    ]);
  } finally {
    for (const child of children) await child.stop();
    simulator.stop();
    await redis.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
