import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:net';
import { freePort } from './free-port';

export interface TestRedis {
  url: string;
  /** False when REDIS_URL was given: that server cannot be stopped by the test. */
  private: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server for good and removes its data directory. */
  close(): Promise<void>;
}

/** Sends a raw PING over TCP; resolves true on +PONG. No client library, so nothing lingers. */
function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('timeout', () => socket.destroy());
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

async function waitForPing(port: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pingOnce(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

/**
 * A private redis-server on a free port, with its own data directory (append-only on when
 * asked), which a test can stop and start again. Uses REDIS_URL instead when it is set.
 */
export async function startTestRedis(options: { appendOnly?: boolean } = {}): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    const url = process.env.REDIS_URL;
    return {
      url,
      private: false,
      stop: async () => {},
      start: async () => {},
      close: async () => {},
    };
  }
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'connector-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.appendOnly ? 'yes' : 'no',
    '--maxmemory-policy',
    'noeviction',
  ];
  const start = async (): Promise<void> => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPing(port);
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
  await start();
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
