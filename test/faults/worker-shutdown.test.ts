import { Queue } from 'bullmq';
import { jobIds, QUEUES } from '../../src/jobs/queue-names';
import { PlatformSimulator } from '../../src/simulator/platform-simulator';
import { eventually, ROUTE_TOKEN } from '../support/harness';
import { redisAndSimulator } from '../support/platform';
import type { TestRedis } from '../support/redis-server';
import { connectorStarted, spawnConnector } from '../support/spawn-ts';

describe('a worker told to stop mid-delivery', () => {
  const shared = redisAndSimulator();
  let redis: TestRedis;
  let simulator: PlatformSimulator;
  beforeAll(() => {
    ({ redis, simulator } = shared);
  });

  const start = (prefix: string, env: Record<string, string> = {}) =>
    spawnConnector(redis.url, simulator.url, { QUEUE_PREFIX: prefix, ...env });

  it('finishes the delivery in hand and exits 0 within 15 s', async () => {
    const proc = start('shutdown');
    try {
      const { publicUrl } = await connectorStarted(proc);
      simulator.connectTo({ checkoutUrl: `${publicUrl}/checkout`, token: ROUTE_TOKEN });
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

  it('leaves a delivery that outlasts the deadline to be retried, and still exits 0', async () => {
    simulator.faults.clear();
    const proc = start('overrun', {
      SHUTDOWN_TIMEOUT_MS: '3000',
      PLATFORM_TIMEOUT_MS: '5000',
      JOB_LOCK_MS: '30000',
    });
    const queue = new Queue(QUEUES.notifications, {
      connection: { host: '127.0.0.1', port: Number(new URL(redis.url).port) },
      prefix: 'overrun',
    });
    try {
      const { publicUrl } = await connectorStarted(proc);
      simulator.connectTo({ checkoutUrl: `${publicUrl}/checkout`, token: ROUTE_TOKEN });
      const answer = await simulator.requestCheckout(1002);
      const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
      const checkoutUrl = await eventually(() => simulator.checkoutUrlFor(1002));
      simulator.faults.add({ match: '/payment/finish-checkout', hang: true });
      const paidAt = Date.now();
      await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
      await eventually(() =>
        simulator.arrivals.find((a) => a.path === '/payment/finish-checkout' && a.at >= paidAt),
      );
      const stopping = Date.now();
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(3000);
      expect(proc.stdout()).toContain('"message":"workers did not close in time');
      expect(proc.stdout()).toContain('"message":"shutdown complete"');
      // The job is still held under its lock, so the stalled-job check hands it to the next worker.
      const job = await queue.getJob(jobIds.notify('finish', checkoutId));
      expect(await job?.getState()).toBe('active');
    } finally {
      simulator.faults.clear();
      proc.child.kill('SIGKILL');
      await queue.close();
    }
  });
});
