import { createServer } from 'node:http';
import { once } from 'node:events';
import { closeHttpServer } from '../../../src/infra/shutdown';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { redisAndSimulator } from '../../support/platform';
import type { TestRedis } from '../../support/redis-server';
import { connectorStarted, spawnConnector, spawnTs } from '../../support/spawn-ts';

describe('the connector process', () => {
  it('exits 78 with one line per problem and no stack trace when the environment is empty', async () => {
    const proc = spawnTs('src/main/server.ts', [], {});
    expect(await proc.exited).toBe(78);
    const lines = proc.stderr().trim().split('\n');
    expect(lines).toContain('config error: PLATFORM_BASE_URL: is required');
    expect(lines.every((line) => line.startsWith('config error: '))).toBe(true);
    expect(proc.stderr()).not.toMatch(/\n\s+at /);
  });

  describe('running', () => {
    const shared = redisAndSimulator();
    let redis: TestRedis;
    let simulator: PlatformSimulator;
    beforeAll(() => {
      ({ redis, simulator } = shared);
    });

    it.each([
      ['unhandled', 'unhandled promise rejection', 'unhandledRejection'],
      ['exception', 'uncaught exception', 'uncaughtException'],
    ])(
      'logs an %s error as one JSON line and shuts down in order, exiting 1',
      async (kind, message, reason) => {
        const proc = spawnTs('test/support/crash-after-start.ts', [], {
          NODE_ENV: 'production',
          SANDBOX_IN_PRODUCTION: 'true',
          PORT: '0',
          REDIS_URL: redis.url,
          PLATFORM_BASE_URL: simulator.url,
          PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
          PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
          PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
          CHECKOUT_ROUTE_TOKEN: 'process-test-token-0123456789',
          CRASH_WITH: kind,
        });
        expect(await proc.exited).toBe(1);
        const lines = proc
          .stdout()
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        const messages = lines.map((line) => line.message);
        const crash = messages.indexOf(message);
        expect(crash).toBeGreaterThan(-1);
        expect(lines[crash]).toMatchObject({
          level: 'error',
          errMessage: `boom: ${kind === 'exception' ? 'uncaught' : 'unhandled'}`,
        });
        expect(lines.find((line) => line.message === 'shutdown started')).toMatchObject({ reason });
        expect(messages.indexOf('shutdown complete')).toBeGreaterThan(crash);
        expect(proc.stderr()).toBe('');
      },
    );

    it('serves health and readiness, then shuts down cleanly on SIGTERM', async () => {
      // Port 0 and the port from the log: a port picked beforehand can be taken by a parallel suite.
      const proc = spawnConnector(redis.url, simulator.url, {
        CHECKOUT_ROUTE_TOKEN: 'process-test-token-0123456789',
      });
      try {
        const { port } = await connectorStarted(proc);
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        proc.child.kill('SIGTERM');
        // Exit 0 is within SHUTDOWN_TIMEOUT_MS: past it the process exits 1.
        expect(await proc.exited).toBe(0);
        const lines = proc
          .stdout()
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { message: string });
        expect(lines.map((l) => l.message)).toEqual(
          expect.arrayContaining(['shutdown started', 'shutdown complete']),
        );
        expect(proc.stdout()).not.toContain('process-test-token-0123456789');
      } finally {
        proc.child.kill('SIGKILL');
      }
    });
  });

  it('runs the simulator from the CLI until SIGINT', async () => {
    const proc = spawnTs('src/main/cli.ts', ['simulator', '--port', '0', '--services', '5'], {});
    try {
      const listening = await proc.waitForOutput(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const port = Number(/:(\d+)$/.exec(listening)?.[1]);
      const auth = Buffer.from(`${DEMO_CREDENTIALS.email}:${DEMO_CREDENTIALS.password}`).toString(
        'base64',
      );
      const res = await fetch(`http://127.0.0.1:${port}/services`, {
        headers: {
          authorization: `Basic ${auth}`,
          'x-dreamfactory-api-key': DEMO_CREDENTIALS.apiKey,
        },
      });
      expect(((await res.json()) as { meta: { count: number } }).meta.count).toBe(5);
      proc.child.kill('SIGINT');
      expect(await proc.exited).toBe(0);
    } finally {
      proc.child.kill('SIGKILL');
    }
  });
});

describe('closeHttpServer', () => {
  it('lets an in-flight request finish while refusing new connections', async () => {
    const server = createServer((_req, res) => {
      setTimeout(() => res.end('finished'), 300);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
    const arrived = once(server, 'request');
    const inFlight = fetch(url).then((res) => res.text());
    await arrived;
    const closed = closeHttpServer(server, 5000);
    await expect(fetch(url)).rejects.toThrow();
    await expect(inFlight).resolves.toBe('finished');
    await closed;
    expect(server.listening).toBe(false);
  });
});
