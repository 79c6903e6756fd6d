import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';

export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * A ratio that cannot be divided by zero: undefined when the denominator is not a positive,
 * finite number (the report then says "n/a" rather than a meaningless 3,896,000x).
 */
export function safeRatio(numerator: number, denominator: number): number | undefined {
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator <= 0) {
    return undefined;
  }
  return numerator / denominator;
}

export const showRatio = (ratio: number | undefined, digits = 2): string =>
  ratio === undefined ? 'n/a' : ratio.toFixed(digits);

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat; index 11 and 12 after the "(comm) " split.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface Child {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * An entry point in a child process (TypeScript through tsx; a built `.js` as is), so what it
 * burns is its own; resolves once its output matches `ready`, with the match.
 */
export async function startChild(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<{ child: Child; match: RegExpExecArray }> {
  const proc = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
      // Node's flags for every child, e.g. --trace-gc, or --heapsnapshot-signal=SIGUSR2.
      ...(process.env.BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
      // A built entry (dist/, what `npm start` runs) needs no TypeScript loader.
      ...(entry.endsWith('.js') ? [] : ['--require', require.resolve('tsx/cjs')]),
      path.join(__dirname, '..', entry),
    ],
    { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  // BENCH_CHILD_OUTPUT_DIR: every child's whole output in a file of its own (e.g. with --trace-gc).
  const copy = process.env.BENCH_CHILD_OUTPUT_DIR
    ? createWriteStream(
        path.join(process.env.BENCH_CHILD_OUTPUT_DIR, `${path.basename(entry)}.${proc.pid}.log`),
      )
    : undefined;
  if (copy) {
    proc.stdout.pipe(copy);
    proc.stderr.pipe(copy);
  }
  const child: Child = {
    process: proc,
    output: () => out,
    stop: async () => {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await new Promise((resolve) => proc.once('exit', resolve));
    },
  };
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} never ready: ${out}`)), timeoutMs);
    let started = false;
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.length > 1_000_000) out = out.slice(-100_000);
      // Once ready, no more matching: at LOG_LEVEL=info a child writes a line per request, and
      // a regex over up to 1 MB per chunk took this process's (the load generator's) CPU.
      if (started) return;
      const found = ready.exec(out);
      if (found) {
        started = true;
        clearTimeout(timer);
        resolve(found);
      }
    };
    proc.stdout.on('data', look);
    proc.stderr.on('data', look);
    proc.once('exit', (code) => reject(new Error(`${entry} exited ${code}: ${out}`)));
  });
  return { child, match };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `${url}/readyz` (every 100 ms, 30 s at most) until `ready` accepts the answer: a 2xx by
 * default; any answer for a server without one (the bare baseline answers it 401).
 */
export async function waitReady(
  url: string,
  ready: (res: Response) => boolean = (res) => res.ok,
): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`${url}/readyz`).then(ready, () => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${url} never ready`);
}

/**
 * Prints whether each target was met and makes the process exit 1 when one was not, so that a
 * missed target fails `npm run bench` rather than hiding in its output.
 */
export function reportTargets(targets: readonly { name: string; met: boolean }[]): void {
  for (const target of targets) {
    console.log(`  ${target.met ? 'target met' : 'TARGET MISSED'}: ${target.name}`);
  }
  if (targets.some((target) => !target.met)) process.exitCode = 1;
}

/**
 * The Node options the image runs the connector with (the Dockerfile's NODE_OPTIONS), for a
 * bench that measures the connector as deployed; BENCH_NODE_OPTIONS overrides them ('' for
 * none: V8's own sizing on this host).
 */
export function imageNodeOptions(): string {
  if (process.env.BENCH_NODE_OPTIONS !== undefined) return process.env.BENCH_NODE_OPTIONS;
  const dockerfile = readFileSync(path.join(__dirname, '..', 'Dockerfile'), 'utf8');
  const value = /^ENV NODE_OPTIONS=(.+)$/m.exec(dockerfile)?.[1]?.trim() ?? '';
  return value.replace(/^"(.*)"$/, '$1');
}

/**
 * The api role's Node options as deployed: deploy/kubernetes/api.yaml's NODE_OPTIONS (the
 * compose file's api service sets the same; test/unit/project/operations-as-code.test.ts keeps them
 * equal), else the image's. BENCH_NODE_OPTIONS overrides.
 */
export function apiNodeOptions(): string {
  if (process.env.BENCH_NODE_OPTIONS !== undefined) return process.env.BENCH_NODE_OPTIONS;
  const manifest = readFileSync(
    path.join(__dirname, '..', 'deploy', 'kubernetes', 'api.yaml'),
    'utf8',
  );
  const value = /- name: NODE_OPTIONS\n\s+value: (.+)$/m.exec(manifest)?.[1]?.trim();
  return value === undefined ? imageNodeOptions() : value.replace(/^['"](.*)['"]$/, '$1');
}
