import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_CREDENTIALS } from '../../src/simulator/platform-simulator';
import { ROUTE_TOKEN } from './harness';

export const ROOT = path.join(__dirname, '..', '..');

/** Under `npm test`, a child process writes its V8 coverage for the summary (jest.config.js). */
export function childCoverageEnv(): Record<string, string> {
  const dir = process.env.CONNECTOR_CHILD_COVERAGE;
  return dir ? { NODE_V8_COVERAGE: dir } : {};
}

export interface Spawned {
  child: ChildProcess;
  /** The (empty, temporary) folder it runs in. */
  cwd: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/** The newest change to a file of src/, read once per test file. */
let srcChanged: number | undefined;
function newestSourceChange(): number {
  srcChanged ??= readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => {
      const changed = statSync(path.join(entry.parentPath, entry.name)).mtimeMs;
      return Math.max(newest, changed);
    }, 0);
  return srcChanged;
}

/**
 * How Node runs an entry point: the build in dist/ when it is newer than every file of src/ (as
 * after `npm ci`, which builds it: the code that ships, started in half the CPU), else the source
 * through tsx. Under `npm test` a child always runs the source, so its coverage maps to src/.
 */
function nodeArgsOf(entry: string): string[] {
  const built = path.join(ROOT, entry.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'));
  const fresh =
    entry.startsWith('src/') &&
    !process.env.CONNECTOR_CHILD_COVERAGE &&
    existsSync(built) &&
    statSync(built).mtimeMs > newestSourceChange();
  return fresh ? [built] : ['--require', require.resolve('tsx/cjs'), path.join(ROOT, entry)];
}

/**
 * Runs an entry point of src/ (or a TypeScript file of test/) in a child process, in an empty
 * working directory (so no developer .env leaks in) and with only the environment given.
 */
export function spawnTs(entry: string, args: string[], env: Record<string, string>): Spawned {
  const cwd = mkdtempSync(path.join(tmpdir(), 'connector-proc-'));
  const child = spawn(process.execPath, [...nodeArgsOf(entry), ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? cwd,
      ...childCoverageEnv(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  // A child may compile its TypeScript as it starts: on a loaded machine that takes a while.
  const waitForOutput = async (pattern: RegExp, timeoutMs = 30_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = pattern.exec(out + err);
      if (match) return match[0];
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`output never matched ${pattern}; stdout: ${out}; stderr: ${err}`);
  };
  return { child, cwd, stdout: () => out, stderr: () => err, exited, waitForOutput };
}

/**
 * The connector's server in production mode on a free port, against a Redis and a platform
 * (the simulator's demo credentials), with the test route token; `env` adds or overrides.
 */
export function spawnConnector(
  redisUrl: string,
  platformUrl: string,
  env: Record<string, string> = {},
): Spawned {
  return spawnTs('src/main/server.ts', [], {
    NODE_ENV: 'production',
    // The sandbox is the provider: production mode on purpose, as against a staging platform.
    SANDBOX_IN_PRODUCTION: 'true',
    PORT: '0',
    REDIS_URL: redisUrl,
    PLATFORM_BASE_URL: platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_TOKEN: ROUTE_TOKEN,
    ...env,
  });
}

/** Waits for the connector's JSON 'connector started' line; the port and public URL it gives. */
export async function connectorStarted(
  proc: Spawned,
  timeoutMs?: number,
): Promise<{ port: number; publicUrl: string }> {
  const line = await proc.waitForOutput(/"message":"connector started".*/, timeoutMs);
  return {
    port: Number(/"port":(\d+)/.exec(line)?.[1]),
    publicUrl: /"publicUrl":"([^"]+)"/.exec(line)?.[1] ?? '',
  };
}
