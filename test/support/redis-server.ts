import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
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

async function waitForPing(url: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      client.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A private redis-server on a free port, with its own data directory (append-only on when
 * asked), which a test can stop and start again. Uses REDIS_URL instead when it is set.
 */
export async function startTestRedis(options: { appendOnly?: boolean } = {}): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    const url = process.env.REDIS_URL;
    return { url, private: false, stop: async () => {}, start: async () => {}, close: async () => {} };
  }
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'connector-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
    '--appendonly', options.appendOnly ? 'yes' : 'no', '--maxmemory-policy', 'noeviction',
  ];
  const start = async (): Promise<void> => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPing(url);
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
