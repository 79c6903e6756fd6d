import { startPrivateRedis, type PrivateRedis } from '../../src/demo/private-redis';
import { PlatformSimulator } from '../../src/simulator/platform-simulator';
import { eventually, ROUTE_TOKEN } from '../support/harness';
import { connectorStarted, spawnConnector, type Spawned } from '../support/spawn-ts';

/**
 * The promise of docs/delivery.md under fire: a few hundred paid checkouts while the platform fails
 * 30% of payment calls, goes dark, the worker process is SIGKILLed mid-delivery and restarted,
 * and Redis (append-only on) is restarted. Zero finishes lost, zero wrong cancels.
 */
const CHECKOUTS = 200;
jest.setTimeout(400_000);

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
    // Each checkout gets its URL, or a cancel when every attempt to send the URL met a 503.
    const cancelled = (id: number) =>
      simulator.accepted('cancel-checkout').some((c) => c.serviceId === id);
    await eventually(
      () =>
        services.every((id) => simulator.checkoutUrlFor(id) || cancelled(id)) ? true : undefined,
      120_000,
      'a checkout url or a cancel for every checkout',
    );
    const withUrl = services.filter((id) => simulator.checkoutUrlFor(id));
    // Five 503s in a row for one URL (0.3^5 each): a handful at most.
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

    // Chaos while the finishes are being delivered: the worker killed mid-delivery and replaced,
    // the platform refusing connections for 3 s, then Redis stopped until the worker has met the
    // outage and started again.
    worker.child.kill('SIGKILL');
    await worker.exited;
    worker = (await start('worker', { PUBLIC_URL: api.url })).proc;
    const { reopened } = await simulator.refuseConnections(3000);
    await reopened;
    await redis.stop();
    await worker.waitForOutput(/"message":"connection error"/, 30_000);
    await redis.start();
    await eventually(
      () =>
        fetch(`${api.url}/readyz`).then(
          (res) => (res.status === 200 ? true : undefined),
          () => undefined,
        ),
      30_000,
      'the connector to reach Redis again',
    );
    simulator.faults.clear();

    const finished = (id: number) =>
      simulator.accepted('finish-checkout').filter((c) => c.serviceId === id).length;
    const lost = () => paid.filter((id) => finished(id) === 0);
    try {
      await eventually(
        () => (lost().length === 0 ? true : undefined),
        120_000,
        'a finish for every paid checkout',
      );
    } finally {
      const wrongCancels = simulator
        .accepted('cancel-checkout')
        .filter((c) => c.serviceId !== undefined && paid.includes(c.serviceId));
      const duplicates = paid.reduce((sum, id) => sum + Math.max(0, finished(id) - 1), 0);
      const attempts = simulator.arrivals.filter(
        (a) => a.path === '/payment/finish-checkout',
      ).length;
      console.log(
        `fault suite: ${paid.length} paid, ${lost().length} lost finishes, ${wrongCancels.length} wrong cancels, ` +
          `${duplicates} duplicate finishes, ${attempts} finish attempts, ${CHECKOUTS - withUrl.length} checkouts cancelled before a URL`,
      );
    }
    expect(lost()).toEqual([]);
    expect(
      simulator
        .accepted('cancel-checkout')
        .filter((c) => c.serviceId !== undefined && paid.includes(c.serviceId)),
    ).toEqual([]);
    const keys = new Set(simulator.accepted('finish-checkout').map((c) => c.idempotencyKey));
    expect(keys.size).toBe(paid.length);
  });
});
