/*
 * Where the checkout route's CPU goes: a server process (the connector with ROLE=api, or
 * PROFILE_ENTRY=bench/bare-checkout-server.ts; PROFILE_ENV, JSON, adds variables) under --cpu-prof,
 * loaded by autocannon (50 connections, PROFILE_SECONDS, a new service per request; PROFILE_REPEAT=1:
 * repeats of one open checkout); then the profile's self time by package and by function, and the
 * total time (itself and what it calls) of the functions of src/, counting only the samples taken
 * under load (not the start-up's module loading). The .cpuprofile stays in PROFILE_DIR for
 * Chrome's DevTools.
 *
 * Run: npm run profile:route
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../src/demo/free-port';
import { startPrivateRedis } from '../src/demo/private-redis';
import { waitReady } from './bench-support';

const TOKEN = 'bench-route-token-0123456789';
const ENTRY = process.env.PROFILE_ENTRY ?? 'src/main/server.ts';
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 6);
const REPEAT = process.env.PROFILE_REPEAT === '1';
const DIR = process.env.PROFILE_DIR ?? mkdtempSync(path.join(tmpdir(), 'connector-profile-'));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
/** The load's start and end, in microseconds of the clock V8's profiles use (CLOCK_MONOTONIC). */
type Window = [number, number];

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** A frame's file, shortened: `npm:<package>/...`, `src/...`, or a node: module. */
function fileOf(url: string): string {
  return url.replace(/.*node_modules\//, 'npm:').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
}

function packageOf(frame: ProfileNode['callFrame']): string {
  const file = fileOf(frame.url);
  const parts = file.split('/');
  if (!file.startsWith('npm:')) return file || `(${frame.functionName})`;
  return parts.slice(0, parts[0]?.startsWith('npm:@') ? 2 : 1).join('/');
}

const functionOf = (frame: ProfileNode['callFrame']) =>
  `${frame.functionName || '(anonymous)'} ${fileOf(frame.url)}:${frame.lineNumber}`;

/** Each node's time in the window: the samples' time deltas, by the node sampled. */
function sampledTime(profile: Profile, [from, to]: Window): Map<number, number> {
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= from && at <= to) self.set(id, (self.get(id) ?? 0) + delta);
  });
  return self;
}

/** Self time by package and by function; total time of src/'s functions (callees included). */
function tally(profile: Profile, window: Window) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const totalOfOurs = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, time: number) =>
    map.set(key, (map.get(key) ?? 0) + time);
  for (const [id, time] of sampledTime(profile, window)) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    add(byPackage, packageOf(frame), time);
    add(byFunction, functionOf(frame), time);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const caller = byId.get(at)?.callFrame;
      const name = caller && fileOf(caller.url).startsWith('src/') ? functionOf(caller) : '';
      if (name && !seen.has(name)) add(totalOfOurs, name, time);
      seen.add(name);
    }
  }
  return { byPackage, byFunction, totalOfOurs };
}

function report(file: string, window: Window): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const { byPackage, byFunction, totalOfOurs } = tally(profile, window);
  const total = [...byPackage.values()].reduce((a, b) => a + b, 0);
  const top = (title: string, map: Map<string, number>, count: number) => {
    console.log(`\n${title}:`);
    for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      console.log(`${((100 * time) / total).toFixed(1).padStart(6)}%  ${name}`);
    }
  };
  console.log(`\nunder load: ${(total / 1e6).toFixed(2)} s sampled`);
  top('self time by package or file', byPackage, 25);
  top('self time by function', byFunction, 25);
  top("total time of src/'s functions (with what they call)", totalOfOurs, 25);
  console.log(`\nprofile: ${file}`);
}

function startServer(port: number, redisUrl: string) {
  return spawn(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${DIR}`,
      '--require',
      require.resolve('tsx/cjs'),
      path.join(__dirname, '..', ENTRY),
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        SANDBOX_IN_PRODUCTION: 'true',
        ROLE: 'api',
        PORT: String(port),
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: 'profile',
        CHECKOUT_ROUTE_TOKEN: TOKEN,
        LOG_LEVEL: 'warn',
        // Never called: the api role only queues the work.
        PLATFORM_BASE_URL: 'http://127.0.0.1:9',
        PLATFORM_EMAIL: 'profile',
        PLATFORM_PASSWORD: 'profile',
        PLATFORM_API_KEY: 'profile',
        // PROFILE_ENV (JSON) adds variables: {"OTEL_EXPORTER_OTLP_ENDPOINT":"http://127.0.0.1:9"}
        // with PROFILE_ENTRY=bench/traced-server.ts profiles the traced route.
        ...(JSON.parse(process.env.PROFILE_ENV ?? '{}') as Record<string, string>),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}

/** autocannon on the route for `seconds`; answers the load's window. */
async function load(port: number, seconds: number): Promise<Window> {
  let next = 500_000;
  const body = REPEAT ? () => '{"service_id": 99999}' : () => `{"service_id":${next++}}`;
  const from = nowUs();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/checkout`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
  });
  console.log(
    `${ENTRY}: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, ${result.requests.total} requests, ${result.non2xx + result.errors} failed`,
  );
  return [from, nowUs()];
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const port = await freePort();
  const child = startServer(port, redis.url);
  let window: Window;
  try {
    await waitReady(`http://127.0.0.1:${port}`, (res) => res.status > 0);
    // A second of warm-up (the JIT, the scripts loaded), outside the window.
    await load(port, 1);
    window = await load(port, SECONDS);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await redis.close();
  }
  const profiles = readdirSync(DIR).filter((name) => name.endsWith('.cpuprofile'));
  if (profiles[0]) report(path.join(DIR, profiles[0]), window);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
