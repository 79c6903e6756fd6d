import { queuePrefix, syncLedgerKey } from '../src/redis/keyspace';
/*
 * The ERP sync at scale, beside a bare baseline in the same run (BENCH_REPS repetitions, the
 * sides alternating, medians):
 *
 *   connector: a worker process as shipped (node dist/main/server.js, built first; ROLE=worker,
 *              ERP_SINK=directory) runs one sync pass over
 *              BENCH_SERVICES simulated services (every status synced), from the pass job being
 *              added until every service's file is written and recorded in the ledger; then a
 *              second pass over the same, unchanged services (until that pass job completes).
 *   bare:      bench/bare-sync.ts, a loop paging through the same simulator and writing the same
 *              files the same way (detail GET, temporary file, fsync, rename), same concurrency,
 *              with no queue, no Redis and no fingerprints.
 *
 * Reports time and services per second of each, the ratio (target >= 0.8), the connector's peak
 * RSS (VmHWM; target < 200 MB), and how much faster the second pass is (target >= 10x).
 * Run: npm run bench:sync   (BENCH_SERVICES=50000 BENCH_REPS=2 by default)
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { freePort } from '../src/demo/free-port';
import { startPrivateRedis } from '../src/demo/private-redis';
import { redisOptions } from '../src/redis/redis';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import {
  cpuSeconds,
  imageNodeOptions,
  median,
  safeRatio,
  showRatio,
  sleep,
  startChild,
} from './bench-support';
import { startSimulatorProcess } from './simulator-process';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 50_000);
const REPS = Number(process.env.BENCH_REPS ?? 2);
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? '10';
const PAGE_SIZE = '500';
const STATUSES = '4,6,7,9';
/** `connector`, `bare` or both (default), to look at one side alone. */
const SIDES = (process.env.BENCH_SIDES ?? 'connector,bare').split(',');
/**
 * Node options of the connector process: the image's (Dockerfile's NODE_OPTIONS) unless
 * BENCH_NODE_OPTIONS says otherwise ('' for none: V8's own heap sizing on this host).
 */
const NODE_OPTIONS = imageNodeOptions();

/** Peak resident set of a process, in MB (Linux). */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line?.replace(/\D+/g, '') ?? NaN) / 1024;
}

async function until(probe: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function main(): Promise<void> {
  // The connector runs as shipped (`npm start`: node dist/main/server.js), built from this tree.
  execSync('npm run build', { cwd: path.join(__dirname, '..'), stdio: 'ignore' });
  const redis = await startPrivateRedis();
  const simulator = await startSimulatorProcess(SERVICES);
  const platformEnv = {
    PLATFORM_BASE_URL: simulator.url,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    PLATFORM_PAGE_SIZE: PAGE_SIZE,
    SYNC_STATUSES: STATUSES,
    WORKER_CONCURRENCY: CONCURRENCY,
  };
  const client = new Redis(redis.url);
  const results: Record<'connector' | 'bare', number[]> = { connector: [], bare: [] };
  const cpu: Record<'connector' | 'bare', number[]> = { connector: [], bare: [] };
  const second: number[] = [];
  const rss: number[] = [];
  const bareRss: number[] = [];
  const folders: string[] = [];
  try {
    for (let rep = 0; rep < REPS; rep++) {
      const order =
        rep % 2 === 0 ? (['connector', 'bare'] as const) : (['bare', 'connector'] as const);
      for (const side of order.filter((s) => SIDES.includes(s))) {
        const dir = mkdtempSync(path.join(tmpdir(), `bench-sync-${side}-`));
        folders.push(dir);
        if (side === 'bare') {
          const { match, child } = await startChild(
            'bench/bare-sync.ts',
            { ...platformEnv, ERP_EXPORT_DIR: dir },
            /bare sync done (\d+) (\d+)/,
            30 * 60_000,
          );
          cpu.bare.push(cpuSeconds(Number(child.process.pid)));
          bareRss.push(peakRssMb(Number(child.process.pid)));
          await child.stop();
          if (Number(match[1]) !== SERVICES) throw new Error(`bare wrote ${match[1]} files`);
          results.bare.push(Number(match[2]));
          console.log(`  rep ${rep + 1} bare loop: ${match[2]} ms`);
          continue;
        }
        const prefix = `bench-sync-${rep}`;
        const port = await freePort();
        const worker = await startChild(
          'dist/main/server.js',
          {
            ...platformEnv,
            NODE_ENV: 'production',
            SANDBOX_IN_PRODUCTION: 'true',
            ROLE: 'worker',
            PORT: String(port),
            REDIS_URL: redis.url,
            QUEUE_PREFIX: prefix,
            CHECKOUT_ROUTE_TOKEN: 'bench-route-token-0123456789',
            LOG_LEVEL: 'warn',
            ERP_SINK: 'directory',
            ERP_EXPORT_DIR: dir,
            ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
          },
          /"level":"warn"|connector started/,
        );
        const pid = Number(worker.child.process.pid);
        const queue = new Queue('sync', {
          connection: redisOptions(redis.url, 'producer'),
          prefix: queuePrefix(prefix, 'sync'),
        });
        try {
          await sleep(1000);
          const started = Date.now();
          const cpuBefore = cpuSeconds(pid);
          let peak = { mb: 0, atMs: 0 };
          const sampler = setInterval(() => {
            const line = readFileSync(`/proc/${pid}/status`, 'utf8')
              .split('\n')
              .find((l) => l.startsWith('VmRSS:'));
            const mb = Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
            if (mb > peak.mb + 5) {
              peak = { mb, atMs: Date.now() - started };
              if (process.env.BENCH_HEAP_TRACE)
                void fetch(`http://127.0.0.1:${port}/metrics`)
                  .then((r) => r.text())
                  .then((m) =>
                    console.log(
                      `    rss ${mb.toFixed(0)} at ${peak.atMs}: ${m
                        .split('\n')
                        .filter((l) =>
                          /^nodejs_(heap_size_used|heap_size_total|external_memory)_bytes|^nodejs_heap_space_size_used_bytes/.test(
                            l,
                          ),
                        )
                        .map((l) =>
                          l
                            .replace(/nodejs_|_bytes/g, '')
                            .replace(/ (\d+)$/, (_, n) => ` ${(Number(n) / 1048576).toFixed(0)}`),
                        )
                        .join('; ')}`,
                    ),
                  )
                  .catch(() => undefined);
            }
          }, 200);
          await queue.add('pass', { shop: 'default' });
          await until(
            async () => (await client.hlen(syncLedgerKey(prefix, 'default'))) >= SERVICES,
            30 * 60_000,
            'every service delivered',
          );
          results.connector.push(Date.now() - started);
          clearInterval(sampler);
          console.log(
            `  rep ${rep + 1} connector RSS sampled: peak ${peak.mb.toFixed(0)} MB at ${peak.atMs} ms`,
          );
          cpu.connector.push(cpuSeconds(pid) - cpuBefore);
          const again = Date.now();
          const pass = await queue.add('pass', { shop: 'default' });
          await until(
            async () => (await queue.getJob(pass.id ?? ''))?.finishedOn !== undefined,
            10 * 60_000,
            'the second pass',
          );
          second.push(Date.now() - again);
          rss.push(peakRssMb(pid));
          const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          const gauge = (name: string) =>
            (
              Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(metrics)?.[1]) /
              1048576
            ).toFixed(0);
          console.log(
            `  rep ${rep + 1} connector memory at the end: heap used ${gauge('nodejs_heap_size_used_bytes')} MB of ${gauge('nodejs_heap_size_total_bytes')} MB, external ${gauge('nodejs_external_memory_bytes')} MB, RSS ${gauge('process_resident_memory_bytes')} MB`,
          );
          console.log(
            `  rep ${rep + 1} connector: ${results.connector.at(-1)} ms, second pass ${second.at(-1)} ms`,
          );
        } finally {
          await queue.close();
          await worker.child.stop();
        }
      }
    }
  } finally {
    client.disconnect();
    simulator.stop();
    await redis.close();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  }
  const connectorMs = median(results.connector);
  const bareMs = median(results.bare);
  const perSecond = (ms: number) => ((SERVICES / ms) * 1000).toFixed(0);
  console.log(
    `\nERP sync benchmark: ${SERVICES} services into the directory sink, ${REPS} repetitions alternating, medians; Node ${process.version}, worker concurrency ${CONCURRENCY}, page size ${PAGE_SIZE}, connector NODE_OPTIONS '${NODE_OPTIONS ?? ''}'`,
  );
  console.log(
    `  first pass  connector ${(connectorMs / 1000).toFixed(1)} s (${perSecond(connectorMs)}/s)  bare loop ${(bareMs / 1000).toFixed(1)} s (${perSecond(bareMs)}/s)`,
  );
  console.log(
    `  throughput connector/bare: ${showRatio(safeRatio(bareMs, connectorMs))} (target >= 0.8; each run: connector ${results.connector.join(', ')} ms, bare ${results.bare.join(', ')} ms)`,
  );
  const cpuMs = (side: 'connector' | 'bare') => ((median(cpu[side]) * 1e6) / SERVICES).toFixed(0);
  console.log(
    `  CPU per service: connector ${cpuMs('connector')} us, bare loop ${cpuMs('bare')} us (the bare figure includes its start)`,
  );
  const most = (values: number[]) => (values.length > 0 ? Math.max(...values).toFixed(0) : 'n/a');
  console.log(
    `  connector peak RSS: ${most(rss)} MB (target < 200 MB; the bare loop's: ${most(bareRss)} MB)`,
  );
  const secondMs = median(second);
  console.log(
    `  second pass over unchanged services: ${(secondMs / 1000).toFixed(2)} s, ${showRatio(safeRatio(connectorMs, secondMs), 1)}x faster than the first (target >= 10x)`,
  );
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
