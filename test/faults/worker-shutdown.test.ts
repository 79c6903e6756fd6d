import { queuePrefix } from '../../src/redis/keyspace';
import { randomBytes } from 'node:crypto';
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
  /** A prefix of its own each run: a shared REDIS_URL keeps what earlier runs left. */
  const freshPrefix = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;

  it('finishes the delivery in hand and exits 0 within its deadline', async () => {
    const proc = start(freshPrefix('shutdown'));
    try {
      const { publicUrl } = await connectorStarted(proc);
      simulator.connectTo({ checkoutUrl: `${publicUrl}/checkout`, token: ROUTE_TOKEN });
      await simulator.requestCheckout(1001);
      const checkoutUrl = await eventually(() => simulator.checkoutUrlFor(1001));
      simulator.faults.add({ match: '/payment/finish-checkout', latencyMs: 3000 });
      await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
      await eventually(() => simulator.arrivals.find((a) => a.path === '/payment/finish-checkout'));
      proc.child.kill('SIGTERM');
      // Exit 0 is within SHUTDOWN_TIMEOUT_MS (15 s): past it the process exits 1.
      expect(await proc.exited).toBe(0);
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
    const prefix = freshPrefix('overrun');
    const proc = start(prefix, {
      SHUTDOWN_TIMEOUT_MS: '3000',
      PLATFORM_TIMEOUT_MS: '5000',
      JOB_LOCK_MS: '30000',
    });
    const queue = new Queue(QUEUES.notifications, {
      connection: { host: '127.0.0.1', port: Number(new URL(redis.url).port) },
      prefix: queuePrefix(prefix, QUEUES.notifications),
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
      proc.child.kill('SIGTERM');
      // Exit 0 is within the 3 s deadline (past it the process exits 1), though a job still ran.
      expect(await proc.exited).toBe(0);
      expect(proc.stdout()).toContain('"message":"workers did not close in time');
      expect(proc.stdout()).not.toContain('"message":"shutdown timed out, exiting"');
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
