/*
 * Where the checkout route's CPU goes: a server process (the connector with ROLE=api, or
 * PROFILE_ENTRY=bench/bare-checkout-server.ts; PROFILE_ENV, JSON, adds variables) under --cpu-prof,
 * loaded by autocannon (50 connections, PROFILE_SECONDS, a new service per request); then the
 * profile's self time by package and by function. The .cpuprofile stays in PROFILE_DIR for
 * Chrome's DevTools.
 *
 * Run: npm run profile:route
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../src/infra/free-port';
import { startPrivateRedis } from '../src/infra/private-redis';
import { waitReady } from './bench-support';

const TOKEN = 'bench-route-token-0123456789';
const ENTRY = process.env.PROFILE_ENTRY ?? 'src/main/server.ts';
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 6);
const DIR = process.env.PROFILE_DIR ?? mkdtempSync(path.join(tmpdir(), 'connector-profile-'));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function report(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, time] of self) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const url = frame.url
      .replace(/.*node_modules\//, 'npm:')
      .replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
    const parts = url.split('/');
    const pkg = url.startsWith('npm:')
      ? parts.slice(0, parts[0]?.startsWith('npm:@') ? 2 : 1).join('/')
      : url || `(${frame.functionName})`;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time);
    const fn = `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + time);
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .forEach(([name, time]) =>
        console.log(`${((100 * time) / total).toFixed(1).padStart(6)}%  ${name}`),
      );
  console.log('\nself time by package or file:');
  top(byPackage, 25);
  console.log('\nself time by function:');
  top(byFunction, 25);
  console.log(`\nprofile: ${file}`);
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const port = await freePort();
  const child = spawn(
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
        REDIS_URL: redis.url,
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
  try {
    await waitReady(`http://127.0.0.1:${port}`, (res) => res.status > 0);
    let next = 500_000;
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/checkout`,
      method: 'POST',
      connections: 50,
      duration: SECONDS,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      requests: [
        { setupRequest: (req) => ({ ...req, body: JSON.stringify({ service_id: next++ }) }) },
      ],
    });
    console.log(
      `${ENTRY}: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, ${result.requests.total} requests`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await redis.close();
  }
  const profiles = readdirSync(DIR).filter((name) => name.endsWith('.cpuprofile'));
  if (profiles[0]) report(path.join(DIR, profiles[0]));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
