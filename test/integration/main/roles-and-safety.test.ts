import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { ConfigError } from '../../../src/config';
import { startConnector } from '../../../src/main/compose';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';
import {
  configOf,
  eventually,
  ROUTE_TOKEN,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';
import { captureLog } from '../../support/log-capture';
import { startPrivateRedis } from '../../../src/demo/private-redis';
import { spawnConnector } from '../../support/spawn-ts';

describe('api and worker roles on one Redis', () => {
  let h: Harness;
  beforeAll(async () => {
    // The harness's own connector serves HTTP only; two worker processes do the work.
    h = await startHarness({ env: { ROLE: 'api', RECONCILE_INTERVAL_MS: '300' } });
  });
  afterAll(() => h.stop());

  it('delivers each notification exactly once with two workers', async () => {
    const services = Array.from({ length: 30 }, (_, i) => 1001 + i);
    // With no worker yet, the jobs wait in Redis until the two workers start.
    await Promise.all(services.map((id) => h.simulator.requestCheckout(id)));
    await h.addConnector({ ROLE: 'worker' });
    await h.addConnector({ ROLE: 'worker' });
    const urls = await eventually(
      () => {
        const found = services.map((id) => h.simulator.checkoutUrlFor(id));
        return found.every(Boolean) ? (found as string[]) : undefined;
      },
      WAIT_DEADLINE_MS,
      'all checkout urls',
    );
    await Promise.all(
      urls.map((url) => fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })),
    );
    await eventually(
      () => (h.simulator.accepted('finish-checkout').length >= services.length ? true : undefined),
      20_000,
      'all finishes',
    );
    await settled(h.connector.jobs);
    const perService = services.map(
      (id) => h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === id).length,
    );
    expect(perService).toEqual(services.map(() => 1));
  });
});

describe('an api process and a worker process', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { ROLE: 'api', RECONCILE_INTERVAL_MS: '300' } });
    await h.addConnector({ ROLE: 'worker' });
  });
  afterAll(() => h.stop());

  it('lets the reconciler re-send a notification whose job was lost', async () => {
    const api = h.connector;
    const answer = await h.simulator.requestCheckout(1035);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const url = await eventually(() => h.simulator.checkoutUrlFor(1035));
    // Record the outcome the way a lost Redis write would leave it: paid, but no job.
    const now = new Date();
    const lookAt = api.deps.schedule.firstLookAt(now);
    await api.deps.store.transition(checkoutId, 'paid', { transactionId: 'tx-lost' }, now, lookAt);
    void url;
    const finish = await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1035),
      WAIT_DEADLINE_MS,
      'finish from the reconciler',
    );
    expect(finish.body).toEqual({ service_id: 1035, transaction_id: 'tx-lost' });
  });

  it('lists and retries failed deliveries from the CLI', async () => {
    h.simulator.faults.add({ match: '/payment/finish-checkout', status: 422, times: 1 });
    await h.simulator.requestCheckout(1036);
    const url = await eventually(() => h.simulator.checkoutUrlFor(1036));
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    const run = (args: string[]) =>
      runCliCaptured(args, { REDIS_URL: h.redis.url, QUEUE_PREFIX: h.prefix });
    const failed = await eventually(
      async () => {
        const listed = await run(['notifications', 'failed', '--format', 'json']);
        const rows = JSON.parse(listed.stdout) as Array<{
          id: string;
          service_id: number;
          reason: string;
        }>;
        return rows.find((r) => r.service_id === 1036);
      },
      WAIT_DEADLINE_MS,
      'a failed delivery',
    );
    expect(failed.reason).toContain('answered 422');
    expect(failed.id).toMatch(/^finish-chk_/);
    expect((await run(['notifications', 'failed'])).stdout).toContain(failed.id);
    expect(await run(['notifications', 'retry', failed.id])).toMatchObject({
      code: 0,
      stdout: `retrying ${failed.id}\n`,
    });
    await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1036),
      WAIT_DEADLINE_MS,
      'finish after retry',
    );
    expect((await run(['notifications', 'retry'])).code).toBe(2);
    expect((await run(['notifications', 'retry', 'finish-chk_nope'])).code).toBe(1);
    expect(await run(['notifications', 'retry', '--all'])).toMatchObject({
      code: 0,
      stdout: 'retrying 0 failed deliveries\n',
    });
  });
});

describe('Redis that may evict keys', () => {
  it('refuses to start in production and warns elsewhere', async () => {
    // This test reconfigures its Redis: always a private one, whatever REDIS_URL says.
    const redis = await startPrivateRedis();
    const admin = new Redis(redis.url);
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const env = {
      PORT: '0',
      REDIS_URL: redis.url,
      QUEUE_PREFIX: `t${randomBytes(3).toString('hex')}`,
      PLATFORM_BASE_URL: 'http://127.0.0.1:9',
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
      CHECKOUT_ROUTE_TOKEN: ROUTE_TOKEN,
    };
    try {
      const production = startConnector(
        configOf({ ...env, NODE_ENV: 'production', SANDBOX_IN_PRODUCTION: 'true' }),
        {
          logger: captureLog().logger,
          host: '127.0.0.1',
        },
      );
      await expect(production).rejects.toBeInstanceOf(ConfigError);
      // And the server process exits 78 with the one line, as the README promises.
      const proc = spawnConnector(redis.url, 'http://127.0.0.1:9', env);
      expect(await proc.exited).toBe(78);
      expect(proc.stderr()).toMatch(
        /^config error: REDIS_URL: Redis may evict keys \(maxmemory-policy allkeys-lru\)/,
      );
      await expect(production).rejects.toMatchObject({
        problems: [
          expect.stringMatching(
            /^REDIS_URL: Redis may evict keys \(maxmemory-policy allkeys-lru\)/,
          ),
        ],
      });
      const log = captureLog();
      const development = await startConnector(configOf({ ...env, NODE_ENV: 'development' }), {
        logger: log.logger,
        host: '127.0.0.1',
        exit: () => undefined,
      });
      await development.shutdown.run('test');
      expect(
        log
          .entries()
          .some((e) => e.message === 'redis may evict keys' && e.maxmemoryPolicy === 'allkeys-lru'),
      ).toBe(true);
    } finally {
      admin.disconnect();
      await redis.close();
    }
  });
});
