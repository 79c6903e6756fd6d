import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../support/harness';
import { childCoverageEnv, ROOT, spawnTs, type Spawned } from '../support/spawn-ts';

/*
 * CONTRACT "The first hour": whatever way the demo ends (a configuration error, a port already
 * in use, a signal, its parent killed), no process or temporary folder it started is left. The
 * demo's private Redis names its folder after the demo's pid (`connector-redis-<pid>-...`), and
 * its redis-server works in that folder (`--dir`): that is what is looked for.
 */
const marker = (pid: number) => `connector-redis-${pid}-`;

/** The demo's private Redis folders and processes still there. */
function leftBy(pid: number): { folders: string[]; processes: string[] } {
  const folders = readdirSync(tmpdir()).filter((name) => name.startsWith(marker(pid)));
  const processes = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        // redis-server rewrites its command line; its working folder is the one it was given.
        const cwd = readlinkSync(`/proc/${entry}/cwd`);
        return cwd.includes(marker(pid)) ? [`${entry}: ${cwd}`] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
  return { folders, processes };
}

const NOTHING = { folders: [], processes: [] };

/** Waits (bounded) for what a process left to be gone: a redis-server takes a moment to exit. */
async function settled(pid: number): Promise<{ folders: string[]; processes: string[] }> {
  const gone = () => {
    const left = leftBy(pid);
    return left.folders.length === 0 && left.processes.length === 0 ? true : undefined;
  };
  // Past the deadline, what is still there is the answer the test compares.
  await eventually(gone, 10_000, `what ${pid} left to be gone`).catch(() => undefined);
  return leftBy(pid);
}

/** Whether `pid` has ended within 10 s: no such process, or one that exited (a zombie). */
async function ended(pid: number): Promise<boolean> {
  const exited = () => {
    try {
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return state === 'Z' || state === 'X' ? true : undefined;
    } catch {
      return true;
    }
  };
  return eventually(exited, 10_000, `${pid} to end`).catch(() => false);
}

function demo(env: Record<string, string> = {}): Spawned {
  return spawnTs('src/demo/demo.ts', [], { PORT: '0', ...env });
}

const started = /Ctrl-C stops everything/;

describe('npm run demo leaves nothing behind', () => {
  it('on SIGTERM once running: its Redis and folder were there, and are gone', async () => {
    const run = demo();
    try {
      await run.waitForOutput(started, 60_000);
      const pid = run.child.pid ?? 0;
      // What the check looks for is there while the demo runs (the check can fail).
      const running = leftBy(pid);
      expect(running.folders).toHaveLength(1);
      expect(running.processes).toHaveLength(1);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(await settled(pid)).toEqual(NOTHING);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('on a configuration error: one line naming the variable, exit 78, nothing started', async () => {
    const run = demo({ PORT: 'abc' });
    expect(await run.exited).toBe(78);
    expect(run.stderr()).toMatch(/config error: PORT:/);
    expect(await settled(run.child.pid ?? 0)).toEqual(NOTHING);
  });

  it('refuses a PAYMENT_PROVIDER it will not use, saying so', async () => {
    const run = demo({ PAYMENT_PROVIDER: 'stripe' });
    expect(await run.exited).toBe(78);
    expect(run.stderr()).toMatch(/config error: PAYMENT_PROVIDER: .*sandbox/);
    expect(await settled(run.child.pid ?? 0)).toEqual(NOTHING);
  });

  it('on a port in use: one line naming the port and PORT, nothing left', async () => {
    const holder: Server = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const address = holder.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const run = demo({ PORT: String(port) });
      expect(await run.exited).toBe(1);
      const lines = run.stderr().trim().split('\n');
      expect(lines).toEqual([expect.stringMatching(new RegExp(`port ${port} is in use.*PORT`))]);
      expect(await settled(run.child.pid ?? 0)).toEqual(NOTHING);
    } finally {
      holder.close();
    }
  });

  it('when what started it is killed (npm, a shell): it stops on its own', async () => {
    // A shell that waits for the demo, as npm does; killed hard, it cannot pass a signal on.
    const shell = spawn(
      'sh',
      [
        '-c',
        `"${process.execPath}" --require "${require.resolve('tsx/cjs')}" "${path.join(ROOT, 'src/demo/demo.ts')}"; true`,
      ],
      {
        env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), PORT: '0', ...childCoverageEnv() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const demoPid = (): Promise<number> =>
      eventually(
        () => {
          if (!started.test(out)) return undefined;
          const children = readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8');
          return Number(children.trim().split(/\s+/)[0]);
        },
        60_000,
        'the demo to start',
      ).catch(() => {
        throw new Error(`the demo never started: ${out}`);
      });
    const pid = await demoPid();
    try {
      expect(leftBy(pid).processes).toHaveLength(1);
      shell.kill('SIGKILL');
      expect(await settled(pid)).toEqual(NOTHING);
      // And the demo itself has ended (gone, or a zombie where nothing reaps orphans).
      expect(await ended(pid)).toBe(true);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});
