import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:net';
import { freePort } from './free-port';

/** A redis-server child process of our own, for the demo and the tests. */
export interface PrivateRedis {
  url: string;
  /** False when an outside Redis was used instead: it cannot be stopped from here. */
  private: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Our child's pid over raw TCP (nothing lingers): proves we reached our server, not a racer's. */
export function serverPid(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (data) => {
      reply += data.toString();
      const match = /process_id:(\d+)/.exec(reply);
      if (match) {
        socket.destroy();
        resolve(Number(match[1]));
      }
    });
    socket.once('timeout', () => socket.destroy());
    socket.once('error', () => resolve(undefined));
    socket.once('close', () => resolve(undefined));
  });
}

/** Waits until our child answers on `port`; false if it exited first (port taken). */
async function waitForOwnServer(
  child: ChildProcess,
  port: number,
  timeoutMs = 10_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if ((await serverPid(port)) === child.pid) return true;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server on port ${port} did not start`);
}

/**
 * Spawns a server on `count` free loopback ports not in `taken`, waits for it on the first, and
 * adds them to `taken`. A port can be taken before the child binds it: then it retries on new ones.
 */
export async function spawnOnFreePorts(
  count: number,
  spawnOn: (ports: number[]) => ChildProcess,
  taken: Set<number> = new Set(),
): Promise<{ ports: number[]; child: ChildProcess }> {
  for (let attempt = 1; ; attempt += 1) {
    const ports: number[] = [];
    while (ports.length < count) {
      const port = await freePort();
      if (!taken.has(port) && !ports.includes(port)) ports.push(port);
    }
    const child = spawnOn(ports);
    if (await waitForOwnServer(child, ports[0] ?? 0)) {
      for (const port of ports) taken.add(port);
      return { ports, child };
    }
    child.kill('SIGKILL');
    if (attempt === 5) throw new Error(`could not start ${child.spawnargs.join(' ')}`);
  }
}

/** redis-server on a loopback port, its data in `dir`, never evicting. */
function spawnRedis(
  port: number,
  dir: string,
  options: { appendOnly?: boolean; replicaOf?: string },
): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '']
      .concat(['--appendonly', options.appendOnly ? 'yes' : 'no'])
      .concat(['--maxmemory-policy', 'noeviction'])
      .concat(
        options.replicaOf ? ['--replicaof', '127.0.0.1', new URL(options.replicaOf).port] : [],
      ),
    { stdio: 'ignore' },
  );
}

/** redis-server from PATH on a free loopback port, its own data directory; restartable on it. */
export async function startPrivateRedis(
  options: { appendOnly?: boolean; replicaOf?: string } = {},
): Promise<PrivateRedis> {
  // Named after the process that owns it: what it leaves behind, if anything, says whose it was.
  const dir = mkdtempSync(path.join(tmpdir(), `connector-redis-${process.pid}-`));
  const spawnServer = (port: number): ChildProcess => spawnRedis(port, dir, options);
  const started = await spawnOnFreePorts(1, ([port = 0]) => spawnServer(port));
  let child: ChildProcess | undefined = started.child;
  const [port = 0] = started.ports;
  const url = `redis://127.0.0.1:${port}`;
  const start = async (): Promise<void> => {
    child = spawnServer(port);
    if (!(await waitForOwnServer(child, port))) {
      throw new Error(`port ${port} was taken while redis-server was stopped`);
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  return {
    url,
    private: true,
    start,
    stop,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
