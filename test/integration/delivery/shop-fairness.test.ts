import { randomBytes } from 'node:crypto';
import type { Job } from 'bullmq';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { eventually, ROUTE_TOKEN, startHarness, type Harness } from '../../support/harness';

/*
 * Isolation and fairness (CONTRACT "Shops"): a shop whose platform account keeps answering 503
 * (an outage of its account) or 401 (its credentials revoked) holds back no other shop; its
 * finish/cancel wait behind its breaker without spending their attempts, and are all delivered,
 * once each, when its account answers again.
 */
const KEY = `k1:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const FAILURES = 3;

describe('a shop whose platform keeps failing', () => {
  let h: Harness;

  const admin = (path: string, body: unknown) =>
    fetch(`${h.url}/admin/api${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** A sandbox shop with an account of its own at the simulator. */
  const addShop = async (id: string) => {
    const platform = {
      email: `${id}@shops.example.com`,
      password: `pw-${randomBytes(6).toString('hex')}`,
      apiKey: `key-${randomBytes(6).toString('hex')}`,
    };
    h.simulator.state.addAccount(platform);
    const response = await admin('/shops', {
      id,
      name: id,
      platform,
      provider: { name: 'sandbox' },
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { checkout_route: { url: string; token: string } };
    // Served now, rather than at the next poll of the registry.
    await h.connector.registry.refresh();
    return { id, email: platform.email, route: body.checkout_route };
  };

  /** Opens a checkout of each service on a route; answers the sandbox URL each got. */
  const openCheckouts = async (
    route: { url: string; token: string },
    email: string,
    serviceIds: number[],
  ): Promise<string[]> => {
    for (const serviceId of serviceIds) {
      const response = await fetch(route.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
        body: JSON.stringify({ service_id: serviceId }),
      });
      expect(response.status).toBe(202);
    }
    return Promise.all(
      serviceIds.map((serviceId) =>
        eventually(() => {
          const call = h.simulator
            .accepted('checkout-url')
            .find((c) => c.account === email && c.serviceId === serviceId);
          return (call?.body as { checkout_url?: string } | undefined)?.checkout_url;
        }),
      ),
    );
  };

  const pay = async (urls: string[]) => {
    for (const url of urls) {
      expect((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    }
  };

  const finishedBy = (email: string) =>
    h.simulator
      .accepted('finish-checkout')
      .filter((c) => c.account === email)
      .map((c) => c.serviceId)
      .sort((a, b) => (a ?? 0) - (b ?? 0));

  const notificationsOf = async (shop: string): Promise<Job[]> => {
    const jobs = await h.connector.jobs.notificationQueue.getJobs([
      'waiting',
      'active',
      'delayed',
      'completed',
      'failed',
    ]);
    return jobs.filter((job) => (job.data as { shop?: string }).shop === shop);
  };

  const metrics = async () => (await fetch(`${h.url}/metrics`)).text();

  beforeAll(async () => {
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: KEY,
        ADMIN_TOKEN,
        SHOP_REFRESH_MS: '200',
        SHOP_BREAKER_FAILURES: String(FAILURES),
        SHOP_BREAKER_COOLDOWN_MS: '300',
        // A retry schedule that, without the breaker, would spend attempt after attempt here.
        NOTIFY_BACKOFF_MS: '20',
        WORKER_CONCURRENCY: '2',
      },
    });
  });
  afterAll(async () => {
    await h.stop();
  });

  it('holds back no other shop, spends no attempts waiting, and delivers all once it answers', async () => {
    const down = await addShop('loja-down');
    const revoked = await addShop('loja-revoked');
    const downUrls = await openCheckouts(down.route, down.email, [1001, 1002, 1003, 1004]);
    const revokedUrls = await openCheckouts(revoked.route, revoked.email, [1005, 1006, 1007]);

    // One account's platform is down for hours; another's credentials were revoked.
    await h.simulator.faults.add({ account: down.email, status: 503 });
    await h.simulator.faults.add({ account: revoked.email, status: 401 });
    await pay([...downUrls, ...revokedUrls]);

    // Both breakers open, and fail their probes again and again.
    const probesFailed = (shop: string) =>
      h.log.entries().filter((e) => e.shop === shop && e.probes !== undefined).length;
    await eventually(
      () => (probesFailed('loja-down') >= 2 && probesFailed('loja-revoked') >= 2) || undefined,
      20_000,
      'two failed probes of each failing shop',
    );
    expect(await metrics()).toMatch(/connector_shop_breaker_open\{shop="loja-down"\} 1/);
    expect(await metrics()).toMatch(/connector_shop_breaker_open\{shop="loja-revoked"\} 1/);

    // Meanwhile the env shop and a healthy registry shop sell and are finished as usual.
    const healthy = await addShop('loja-ok');
    const envRoute = { url: `${h.url}/checkout`, token: ROUTE_TOKEN };
    await pay(await openCheckouts(envRoute, DEMO_CREDENTIALS.email, [1008, 1009]));
    await pay(await openCheckouts(healthy.route, healthy.email, [1010, 1011]));
    await eventually(
      () =>
        (finishedBy(DEMO_CREDENTIALS.email).length === 2 || undefined) &&
        (finishedBy(healthy.email).length === 2 || undefined),
      20_000,
      'the healthy shops finished',
    );
    expect(finishedBy(DEMO_CREDENTIALS.email)).toEqual([1008, 1009]);
    expect(finishedBy(healthy.email)).toEqual([1010, 1011]);
    // Nothing of the failing shops got through, and their deliveries kept their attempts: only
    // the failures counted before the breaker opened were spent, where the retry schedule alone
    // (20 ms, doubling) would have spent several per job by now.
    expect(finishedBy(down.email)).toEqual([]);
    expect(finishedBy(revoked.email)).toEqual([]);
    for (const shop of ['loja-down', 'loja-revoked']) {
      const jobs = await notificationsOf(shop);
      expect(jobs).toHaveLength(shop === 'loja-down' ? 4 : 3);
      const spent = jobs.reduce((sum, job) => sum + job.attemptsMade, 0);
      expect(spent).toBeLessThan(FAILURES);
      expect(await Promise.all(jobs.map((job) => job.getState()))).not.toContain('failed');
    }
    expect(await metrics()).toMatch(/connector_notifications_held_total\{shop="loja-down"\} [1-9]/);
    expect(await metrics()).not.toMatch(/connector_notifications_held_total\{shop="default"\}/);
    expect(await metrics()).toMatch(
      /connector_notification_attempts_total\{shop="default",kind="finish",result="delivered"\} 2/,
    );

    // The accounts answer again: every waiting finish is delivered, once, with its own account.
    h.simulator.faults.clear();
    await eventually(
      () =>
        (finishedBy(down.email).length === 4 && finishedBy(revoked.email).length === 3) ||
        undefined,
      30_000,
      "the failing shops' finishes once their accounts answer",
    );
    expect(finishedBy(down.email)).toEqual([1001, 1002, 1003, 1004]);
    expect(finishedBy(revoked.email)).toEqual([1005, 1006, 1007]);
    await eventually(async () =>
      /connector_shop_breaker_open\{/.test(await metrics()) ? undefined : true,
    );
    expect(h.log.entries()).toContainEqual(
      expect.objectContaining({ level: 'info', shop: 'loja-down' }),
    );
  });
});
