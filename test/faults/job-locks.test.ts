import { randomBytes } from 'node:crypto';
import { PlatformSimulator } from '../../src/simulator/platform-simulator';
import { eventually, ROUTE_TOKEN, settled, startHarness, type Harness } from '../support/harness';
import { startTestRedis, type TestRedis } from '../support/redis-server';
import { connectorStarted, spawnConnector, type Spawned } from '../support/spawn-ts';

/**
 * What JOB_LOCK_MS bounds. BullMQ renews the lock of a running job every JOB_LOCK_MS / 2, so a
 * job may run as long as it needs; the lock lapses only when its worker stops renewing it (the
 * process died, or its event loop was blocked), and then another worker takes the job up within
 * JOB_LOCK_MS plus one stalled-job check (half of it, at most 30 s).
 */
const LOCK_MS = 5000;

describe('a delivery slower than JOB_LOCK_MS', () => {
  let h: Harness;
  beforeAll(async () => {
    // The lock at its floor, a platform call allowed to take four times as long (the old rule
    // asked for a lock of 90 s here), and a second connector whose workers would take a lapsed job.
    h = await startHarness({
      env: { JOB_LOCK_MS: String(LOCK_MS), PLATFORM_TIMEOUT_MS: String(4 * LOCK_MS) },
    });
    await h.addConnector();
  });
  afterAll(() => h.stop());

  it('keeps its lock while it runs: one attempt, though it outlasts the lock twice over', async () => {
    h.simulator.faults.add({
      match: '/payment/finish-checkout',
      latencyMs: 2.5 * LOCK_MS,
      times: 1,
    });
    const answer = await h.simulator.requestCheckout(1001);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const url = await eventually(() => h.simulator.checkoutUrlFor(1001), undefined, 'url');
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1001),
      60_000,
      'the slow finish',
    );
    await settled(h.connector.jobs);
    const attempts = h.simulator.arrivals.filter((a) => a.path === '/payment/finish-checkout');
    expect(attempts).toHaveLength(1);
    const job = await h.connector.jobs.notificationQueue.getJob(`finish-${checkoutId}`);
    expect(job?.stalledCounter).toBe(0);
    expect(await job?.getState()).toBe('completed');
  }, 90_000);
});

describe('a worker that dies mid-delivery', () => {
  let redis: TestRedis;
  let simulator: PlatformSimulator;
  const processes: Spawned[] = [];
  beforeAll(async () => {
    redis = await startTestRedis();
    simulator = new PlatformSimulator();
    await simulator.start();
  });
  afterAll(async () => {
    for (const proc of processes) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    }
    await simulator.stop();
    await redis.close();
  });

  it('leaves its job to another worker once the lock lapses, and not before', async () => {
    const env = {
      QUEUE_PREFIX: `locks-${randomBytes(4).toString('hex')}`,
      JOB_LOCK_MS: String(LOCK_MS),
    };
    const first = spawnConnector(redis.url, simulator.url, env);
    processes.push(first);
    const { publicUrl } = await connectorStarted(first);
    simulator.connectTo({ checkoutUrl: `${publicUrl}/checkout`, token: ROUTE_TOKEN });
    await simulator.requestCheckout(1002);
    const url = await eventually(() => simulator.checkoutUrlFor(1002), undefined, 'url');
    // The first attempt hangs at the platform: the job is in the worker's hands when it dies.
    simulator.faults.add({ match: '/payment/finish-checkout', hang: true, times: 1 });
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    const finishes = () => simulator.arrivals.filter((a) => a.path === '/payment/finish-checkout');
    await eventually(() => finishes()[0], undefined, 'the first attempt');
    first.child.kill('SIGKILL');
    await first.exited;
    const diedAt = Date.now();

    const second = spawnConnector(redis.url, simulator.url, { ...env, PUBLIC_URL: publicUrl });
    processes.push(second);
    await connectorStarted(second);
    const finish = await eventually(
      () => simulator.accepted('finish-checkout').find((c) => c.serviceId === 1002),
      60_000,
      'the finish from the second worker',
    );
    const retakenMs = Date.parse(finish.receivedAt) - diedAt;
    console.log(
      `job locks: a dead worker's delivery was taken up ${retakenMs} ms after it died ` +
        `(JOB_LOCK_MS ${LOCK_MS}, a stalled-job check every ${LOCK_MS / 2} ms)`,
    );
    // The lock was renewed at most LOCK_MS / 2 before the death: it lapses no sooner than that.
    expect(retakenMs).toBeGreaterThanOrEqual(LOCK_MS / 2);
    expect(finishes()).toHaveLength(2);
  }, 120_000);
});
