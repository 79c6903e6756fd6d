import {
  DEMO_CREDENTIALS,
  PlatformSimulator,
} from '../../src/platform/simulator/platform-simulator';
import { eventually, ROUTE_TOKEN } from '../support/harness';
import { startTestRedis, type TestRedis } from '../support/redis-server';
import { spawnTs } from '../support/spawn-ts';

describe('a worker told to stop mid-delivery', () => {
  let redis: TestRedis;
  let simulator: PlatformSimulator;
  beforeAll(async () => {
    redis = await startTestRedis();
    simulator = new PlatformSimulator();
    await simulator.start();
  });
  afterAll(async () => {
    await simulator.stop();
    await redis.close();
  });

  it('finishes the delivery in hand and exits 0 within 15 s', async () => {
    const proc = spawnTs('src/main/server.ts', [], {
      NODE_ENV: 'production',
      PORT: '0',
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'shutdown',
      PLATFORM_BASE_URL: simulator.url,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
      CHECKOUT_ROUTE_TOKEN: ROUTE_TOKEN,
    });
    try {
      const started = await proc.waitForOutput(/"message":"connector started".*/);
      const url = /"publicUrl":"([^"]+)"/.exec(started)?.[1] ?? '';
      simulator.connectTo({ checkoutUrl: `${url}/checkout`, token: ROUTE_TOKEN });
      await simulator.requestCheckout(1001);
      const checkoutUrl = await eventually(() => simulator.checkoutUrlFor(1001));
      simulator.faults.add({ match: '/payment/finish-checkout', latencyMs: 3000 });
      await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
      await eventually(() => simulator.arrivals.find((a) => a.path === '/payment/finish-checkout'));
      const stopping = Date.now();
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(15_000);
      expect(
        simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1001),
      ).toHaveLength(1);
      expect(proc.stdout()).toContain('"message":"shutdown complete"');
    } finally {
      proc.child.kill('SIGKILL');
    }
  });
});
