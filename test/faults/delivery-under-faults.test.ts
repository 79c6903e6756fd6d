import { startPrivateRedis, type PrivateRedis } from '../../src/infra/private-redis';
import { PlatformSimulator } from '../../src/simulator/platform-simulator';
import { eventually, ROUTE_TOKEN } from '../support/harness';
import { connectorStarted, spawnConnector, type Spawned } from '../support/spawn-ts';

/**
 * The promise of DELIVERY.md under fire: a few hundred paid checkouts while the platform fails
 * 30% of payment calls, goes dark, the worker process is SIGKILLed mid-delivery and restarted,
 * and Redis (append-only on) is restarted. Zero finishes lost, zero wrong cancels.
 */
const CHECKOUTS = 200;
jest.setTimeout(180_000);

describe('delivery under faults', () => {
  let redis: PrivateRedis;
  let simulator: PlatformSimulator;
  const processes: Spawned[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis({ appendOnly: true });
    simulator = new PlatformSimulator({ serviceCount: CHECKOUTS + 10 });
    await simulator.start();
  });
  afterAll(async () => {
    for (const proc of processes) proc.child.kill('SIGKILL');
    await simulator.stop();
    await redis.close();
  });

  const faultEnv = {
    LOG_LEVEL: 'info',
    QUEUE_PREFIX: 'faults',
    PLATFORM_TIMEOUT_MS: '1000',
    JOB_LOCK_MS: '14000',
    NOTIFY_BACKOFF_MS: '200',
    RECONCILE_INTERVAL_MS: '2000',
  };

  async function start(
    role: 'api' | 'worker',
    extra: Record<string, string> = {},
  ): Promise<{ proc: Spawned; url: string }> {
    const proc = spawnConnector(redis.url, simulator.url, { ...faultEnv, ROLE: role, ...extra });
    processes.push(proc);
    const { publicUrl } = await connectorStarted(proc, 20_000);
    return { proc, url: publicUrl };
  }

  it('loses no finish and sends no wrong cancel', async () => {
    const api = await start('api');
    let worker = (await start('worker', { PUBLIC_URL: api.url })).proc;
    simulator.connectTo({ checkoutUrl: `${api.url}/checkout`, token: ROUTE_TOKEN });
    simulator.faults.add({ match: '/payment/', status: 503, rate: 0.3 });

    const services = Array.from({ length: CHECKOUTS }, (_, i) => 1001 + i);
    for (let i = 0; i < services.length; i += 25) {
      await Promise.all(services.slice(i, i + 25).map((id) => simulator.requestCheckout(id)));
    }
    await eventually(
      () => (services.every((id) => simulator.checkoutUrlFor(id)) ? true : undefined),
      60_000,
      'checkout urls',
    ).catch(() => undefined);
    const withUrl = services.filter((id) => simulator.checkoutUrlFor(id));
    expect(withUrl.length).toBeGreaterThan(CHECKOUTS * 0.95);

    const paid: number[] = [];
    for (let i = 0; i < withUrl.length; i += 25) {
      await Promise.all(
        withUrl.slice(i, i + 25).map(async (id) => {
          const res = await fetch(`${simulator.checkoutUrlFor(id)}/pay`, {
            method: 'POST',
            redirect: 'manual',
          });
          if (res.status === 303) paid.push(id);
        }),
      );
    }
    expect(paid.length).toBe(withUrl.length);

    // Chaos while the finishes are being delivered.
    worker.child.kill('SIGKILL');
    await worker.exited;
    worker = (await start('worker', { PUBLIC_URL: api.url })).proc;
    await simulator.refuseConnections(3000);
    await new Promise((resolve) => setTimeout(resolve, 3500));
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.start();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    simulator.faults.clear();

    const finished = (id: number) =>
      simulator.accepted('finish-checkout').filter((c) => c.serviceId === id).length;
    await eventually(
      () => (paid.every((id) => finished(id) >= 1) ? true : undefined),
      90_000,
      'a finish for every paid checkout',
    ).catch(() => undefined);
    const lost = paid.filter((id) => finished(id) === 0);
    const wrongCancels = simulator
      .accepted('cancel-checkout')
      .filter((c) => c.serviceId !== undefined && paid.includes(c.serviceId));
    const duplicates = paid.reduce((sum, id) => sum + Math.max(0, finished(id) - 1), 0);
    const attempts = simulator.arrivals.filter((a) => a.path === '/payment/finish-checkout').length;
    console.log(
      `fault suite: ${paid.length} paid, ${lost.length} lost finishes, ${wrongCancels.length} wrong cancels, ` +
        `${duplicates} duplicate finishes, ${attempts} finish attempts, ${CHECKOUTS - withUrl.length} checkouts cancelled before a URL`,
    );
    expect(lost).toEqual([]);
    expect(wrongCancels).toEqual([]);
    const keys = new Set(simulator.accepted('finish-checkout').map((c) => c.idempotencyKey));
    expect(keys.size).toBe(paid.length);
  });
});
