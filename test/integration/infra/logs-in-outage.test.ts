import { startPrivateRedis, type PrivateRedis } from '../../../src/demo/private-redis';
import { PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { eventually } from '../../support/harness';
import { connectorStarted, spawnConnector, type Spawned } from '../../support/spawn-ts';

/** Every line the process wrote, parsed; a line that is not one JSON object fails the test. */
function jsonLines(proc: Spawned): Array<Record<string, unknown>> {
  const lines = `${proc.stdout()}${proc.stderr()}`.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`not a JSON log line: ${line}`);
    }
  });
}

/** How long Redis stays away once every connection has said so. */
const OUTAGE_MS = 2000;

describe('logs in production during a Redis outage', () => {
  let redis: PrivateRedis;
  let simulator: PlatformSimulator;
  let proc: Spawned | undefined;
  beforeAll(async () => {
    // This test stops and starts its Redis: always a private one, whatever REDIS_URL says.
    redis = await startPrivateRedis();
    simulator = new PlatformSimulator();
    await simulator.start();
  });
  afterAll(async () => {
    // A failed assertion must not leave the connector running.
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
    await simulator.stop();
    await redis.close();
  });

  it('writes one JSON object a line, before, during and after the outage', async () => {
    // The registry polled every 100 ms: a line a poll would be a stream.
    proc = spawnConnector(redis.url, simulator.url, {
      RECONCILE_INTERVAL_MS: '500',
      SHOP_REFRESH_MS: '100',
    });
    const { port } = await connectorStarted(proc);
    await redis.stop();
    const running = proc;
    const errors = () =>
      jsonLines(running).filter(
        (line) => line.message === 'connection error' && line.level === 'warn',
      );
    // The connections say so together, once, not once each nor once per reconnect attempt.
    await eventually(() => (errors().length >= 1 ? true : undefined), 20_000, 'outage lines');
    // The outage goes on for a while (its length, not a wait for anything): every connection
    // retries every few hundred ms meanwhile, and must still say so only once. On a slower
    // machine fewer retries happen, which can only make the check below easier, never flaky.
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await redis.start();
    const ready = async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
    await eventually(async () => ((await ready()) === 200 ? true : undefined), 20_000, 'ready');
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const lines = jsonLines(running);
    expect(lines.map((line) => line.message)).toContain('shutdown complete');
    // One line per distinct error for every connection together, naming where Redis should be.
    const said = errors().map((line) => line.errMessage);
    expect(said.length).toBeGreaterThanOrEqual(1);
    expect(new Set(said).size).toBe(said.length);
    for (const line of errors()) {
      expect(line).toMatchObject({
        redisUrl: `${redis.url}`,
        check: expect.stringContaining('REDIS_URL'),
      });
    }
    // The registry's failed polls (20 or so in the outage) are said once per distinct error.
    const unread = lines
      .filter(
        (line) =>
          line.message === 'the shop registry could not be read; serving the shops as they were',
      )
      .map((line) => line.error);
    expect(new Set(unread).size).toBe(unread.length);
  }, 60_000);
});
