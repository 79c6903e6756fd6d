import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/**
 * Runs a TypeScript entry point of src/ in a child process through tsx, in an empty working
 * directory (so no developer .env leaks in) and with only the environment given.
 */
export function spawnTs(entry: string, args: string[], env: Record<string, string>): Spawned {
  const cwd = mkdtempSync(path.join(tmpdir(), 'connector-proc-'));
  const child = spawn(
    process.execPath,
    ['--require', require.resolve('tsx/cjs'), path.join(ROOT, entry), ...args],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const waitForOutput = async (pattern: RegExp, timeoutMs = 15_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = pattern.exec(out + err);
      if (match) return match[0];
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`output never matched ${pattern}; stdout: ${out}; stderr: ${err}`);
  };
  return { child, stdout: () => out, stderr: () => err, exited, waitForOutput };
}
