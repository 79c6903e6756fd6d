import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { requestCheckout } from '../../../src/checkout/request-checkout';
import { jobIds } from '../../../src/jobs/queue-names';
import type { RunningConnector } from '../../../src/main/compose';
import { runCliCaptured } from '../../support/cli';
import { monitorRedis } from '../../support/redis-monitor';
import { adminApi, dataScopeOf, newPlatformAccount } from '../../support/registry-shop';
import {
  completedJob,
  eventually,
  settled,
  startHarness,
  type Harness,
} from '../../support/harness';

/*
 * A shop's lifecycle as an attacker and a careless integrator would try it (CONTRACT "The trust
 * boundary of a shop"): every change is honoured by every process on its next request, not its
 * next poll; a removed shop is gone at once, its queued work dropped, its data purged, and a shop
 * added again under its id starts empty. The registry's polls are stopped here, so nothing below
 * can pass by a poll.
 */
const KEY = `k1:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

type Route = { url: string; token: string };

describe("a shop's changes and removal, across processes", () => {
  let h: Harness;
  let other: RunningConnector;
  let redis: Redis;

  const admin = (path: string, init: RequestInit = {}) => adminApi(h, ADMIN_TOKEN)(path, init);
  /** The platform calling a shop's route on one process (`base`), with a token. */
  const call = (route: Route, serviceId: number, base: string, token = route.token) =>
    fetch(route.url.replace(h.url, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ service_id: serviceId }),
    });
  const addShop = async (id: string, platform = newPlatformAccount(h, id)) => {
    const response = await admin('/shops', {
      method: 'POST',
      body: JSON.stringify({ id, name: `Loja ${id}`, platform, provider: { name: 'sandbox' } }),
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { checkout_route: Route };
    return { route: body.checkout_route, platform };
  };
  /** Every key the shop's data has under any incarnation, and its audit trail. */
  const keysOf = async (id: string) => [
    ...(await redis.keys(`{${h.prefix}:shop:${id}}:*`)),
    ...(await redis.keys(`{${h.prefix}:shop:${id}.*}:*`)),
    ...(await redis.keys(`{${h.prefix}:registry}:audit:${id}`)),
  ];
  const urlsSentBy = (email: string) =>
    h.simulator.accepted('checkout-url').filter((c) => c.account === email);

  beforeAll(async () => {
    h = await startHarness({
      env: { SHOP_SECRET_KEYS: KEY, ADMIN_TOKEN },
    });
    other = await h.addConnector();
    h.connector.registry.stop();
    other.registry.stop();
    redis = new Redis(h.redis.url, { lazyConnect: true });
    await redis.connect();
  });
  afterAll(async () => {
    await redis?.quit();
    await h?.stop();
  });

  it('a token answered with a 201 works at once, on the process that answered and on another', async () => {
    const { route } = await addShop('loja-nova');
    // No refresh, no poll: the first call on each process is the one right after the 201.
    const [here, there] = await Promise.all([
      call(route, 1011, h.url),
      call(route, 1012, other.url),
    ]);
    expect([here.status, there.status]).toEqual([202, 202]);
  });

  it('a rotation, a revocation and a disable are honoured by every process on its next request', async () => {
    const { route } = await addShop('loja-gira');
    // Both processes have served the shop, so each holds it opened.
    expect((await call(route, 1013, h.url)).status).toBe(202);
    expect((await call(route, 1014, other.url)).status).toBe(202);

    const rotated = await admin('/shops/loja-gira/rotate-token', { method: 'POST' });
    const fresh = ((await rotated.json()) as { checkout_route: Route }).checkout_route;
    expect((await call(fresh, 1015, other.url)).status).toBe(202);
    // Without revocation the previous token keeps working for its 24 hours.
    expect((await call(route, 1016, other.url)).status).toBe(202);

    const revoking = await admin('/shops/loja-gira/rotate-token', {
      method: 'POST',
      body: JSON.stringify({ revoke_previous: true }),
    });
    expect(revoking.status).toBe(200);
    const newest = (await revoking.json()) as {
      checkout_route: Route;
      previous_token_valid_until: string | null;
    };
    expect(newest.previous_token_valid_until).toBeNull();
    for (const base of [h.url, other.url]) {
      expect((await call(fresh, 1017, base)).status).toBe(401);
      expect((await call(route, 1017, base)).status).toBe(401);
      expect((await call(newest.checkout_route, 1018, base)).status).toBe(202);
    }

    expect((await admin('/shops/loja-gira/disable', { method: 'POST' })).status).toBe(200);
    const disabled = await call(newest.checkout_route, 1019, other.url);
    expect(disabled.status).toBe(403);
    expect(((await disabled.json()) as { error: { code: string } }).error.code).toBe(
      'SHOP_DISABLED',
    );
  });

  it("reads a shop's own text only once the registry has moved, and then honours the change", async () => {
    const { route } = await addShop('loja-leve');
    expect((await call(route, 1031, other.url)).status).toBe(202);
    // Both processes have read the whole registry since the add (as their polls would): the
    // checkouts' jobs run on either one's workers, and read their shop as requests do.
    await Promise.all([other.registry.refresh(), h.connector.registry.refresh()]);
    const monitor = await monitorRedis(h.redis.url);
    const shopReads: string[][] = [];
    const registryShops = `{${h.prefix}:registry}:shops`;
    monitor.onCommand(({ args }) => {
      if (args[0]?.toLowerCase() === 'hmget' && args[1] === registryShops) shopReads.push(args);
    });
    try {
      // Nothing changed: each request (and each job) reads the registry's version, never the
      // shop's text.
      for (const service of [1032, 1033, 1034])
        expect((await call(route, service, other.url)).status).toBe(202);
      // Every read the requests made ran before the last one was answered.
      await monitor.caughtUp(redis);
      expect(shopReads).toEqual([]);

      // A revocation on the first process: the other one's next request reads the shop itself.
      const rotated = await admin('/shops/loja-leve/rotate-token', {
        method: 'POST',
        body: JSON.stringify({ revoke_previous: true }),
      });
      expect(rotated.status).toBe(200);
      expect((await call(route, 1035, other.url)).status).toBe(401);
      await eventually(() => (shopReads.length > 0 ? true : undefined), 5000, 'the read seen');
      expect(shopReads.map((args) => args.slice(2))).toContainEqual(['loja-leve']);
    } finally {
      await monitor.close();
    }
  });

  it('refuses a rotation body it does not understand, naming the field', async () => {
    await addShop('loja-corpo');
    const wrong = await admin('/shops/loja-corpo/rotate-token', {
      method: 'POST',
      body: JSON.stringify({ revoke_previous: 'yes', also: 1 }),
    });
    expect(wrong.status).toBe(400);
    const text = await wrong.text();
    expect(text).toContain('revoke_previous');
    expect(text).toContain('also');
  });

  it('`shops rotate-token --revoke-previous` revokes the previous token at once', async () => {
    const { route } = await addShop('loja-cli');
    const env = {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      SHOP_SECRET_KEYS: KEY,
      PLATFORM_BASE_URL: h.platformUrl,
      PUBLIC_URL: h.url,
    };
    const run = await runCliCaptured(
      ['shops', 'rotate-token', 'loja-cli', '--revoke-previous'],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the previous token no longer works');
    const token = /route token:\s+(\S+)/.exec(run.stdout)?.[1];
    expect(token).toBeDefined();
    for (const base of [h.url, other.url]) {
      expect((await call(route, 1020, base)).status).toBe(401);
      expect((await call(route, 1021, base, token)).status).toBe(202);
    }
  });

  it('a removed shop is gone at once everywhere; added again under its id, it starts empty', async () => {
    const first = await addShop('loja-sai');
    // The first shop's life: a checkout paid and reported, so DELETE has nothing to wait for.
    expect((await call(first.route, 1022, other.url)).status).toBe(202);
    const url = await eventually(() => urlsSentBy(first.platform.email).at(-1));
    const checkoutUrl = (url.body as { checkout_url: string }).checkout_url;
    const checkoutId = /\/sandbox\/checkout\/([^/?#]+)/.exec(checkoutUrl)?.[1] ?? '';
    const paid = await fetch(`${h.url}/sandbox/checkout/${checkoutId}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    await eventually(() =>
      h.simulator.accepted('finish-checkout').some((c) => c.account === first.platform.email)
        ? true
        : undefined,
    );
    await eventually(async () =>
      (await redis.zcard(
        `{${h.prefix}:shop:loja-sai.${await incarnationOf('loja-sai')}}:chk-due`,
      )) === 0
        ? true
        : undefined,
    );
    // What a request that passed the token check just before the DELETE holds: the old shop's.
    const before = await other.directory.byId('loja-sai');
    if (!before) throw new Error('the shop is served before its removal');

    expect((await admin('/shops/loja-sai', { method: 'DELETE' })).status).toBe(204);
    // Gone on both processes, at once: the route, its webhooks and its pages.
    for (const base of [h.url, other.url]) {
      expect((await call(first.route, 1023, base)).status).toBe(401);
      expect((await fetch(`${base}/sandbox/checkout/${checkoutId}`)).status).toBe(404);
      const hook = await fetch(`${base}/webhooks/sandbox/loja-sai`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(hook.status).toBe(404);
    }
    expect(await keysOf('loja-sai')).toEqual([]);
    // Who removed it is kept apart from any shop's trail.
    const removals = await redis.lrange(`{${h.prefix}:registry}:removals`, 0, -1);
    expect(removals.map((entry) => JSON.parse(entry) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({
        shop: 'loja-sai',
        action: 'removed',
        by: expect.stringMatching(/^admin:[0-9a-f]{8}$/),
      }),
    );

    // The id again, another owner, another platform account.
    const second = await addShop('loja-sai', newPlatformAccount(h, 'loja-sai-2'));
    // The request that raced the DELETE writes now, with the old shop's collaborators.
    const raced = await requestCheckout(before.deps, 1024);
    if (raced.kind !== 'accepted') throw new Error(`the raced request was ${raced.kind}`);
    const job = await completedJob(
      h.connector.jobs.checkoutQueue,
      jobIds.produce(raced.checkoutId),
    );
    expect(job.returnvalue).toBe('dropped');
    // A finish the old shop's collaborators queue after the re-add (a late webhook): dropped too.
    await before.deps.jobs.notify({ kind: 'finish', checkoutId: raced.checkoutId });
    const finish = await completedJob(
      h.connector.jobs.notificationQueue,
      jobIds.notify('finish', raced.checkoutId),
    );
    expect(finish.returnvalue).toBe('dropped');
    // Dropped, never done with the new account (nor the old); and what it wrote is purged.
    await settled(h.connector.jobs);
    expect(
      h.simulator.accepted('finish-checkout').filter((c) => c.account === second.platform.email),
    ).toEqual([]);
    expect(urlsSentBy(second.platform.email)).toEqual([]);
    expect(urlsSentBy(first.platform.email).map((c) => c.serviceId)).toEqual([1022]);
    expect(
      await redis.keys(`{${h.prefix}:shop:loja-sai.${before.settings.incarnation}}:*`),
    ).toEqual([]);

    // The new shop sees none of its predecessor: no checkout, no story, no audit entry.
    const story = await runCliCaptured(['checkout', 'status', '1022', '--shop', 'loja-sai'], {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
    });
    expect(story.stdout).not.toContain(checkoutId);
    expect(story.stderr).toContain('no checkouts of service 1022 in shop loja-sai');
    expect(story.code).toBe(1);
    const audit = (await (await admin('/shops/loja-sai/audit')).json()) as {
      entries: Array<{ action: string }>;
    };
    expect(audit.entries.map((e) => e.action)).toEqual(['added']);
    // And it works, with its own account.
    expect((await call(second.route, 1025, other.url)).status).toBe(202);
    const sent = await eventually(() => urlsSentBy(second.platform.email).at(-1));
    expect(sent.serviceId).toBe(1025);
    expect((sent.body as { checkout_url: string }).checkout_url).not.toContain(checkoutId);
  });

  /** Rewrites a shop's record as the release before incarnations stored it: without one. */
  async function storeAsPreviousRelease(id: string): Promise<void> {
    const key = `{${h.prefix}:registry}:shops`;
    const stored = JSON.parse((await redis.hget(key, id)) ?? '{}') as Record<string, unknown>;
    delete stored.incarnation;
    await redis.hset(key, id, JSON.stringify(stored));
  }

  /** The incarnation the registry holds for a shop. */
  async function incarnationOf(id: string): Promise<string> {
    const raw = await redis.hget(`{${h.prefix}:registry}:shops`, id);
    return (JSON.parse(raw ?? '{}') as { incarnation?: string }).incarnation ?? '';
  }

  it("drops a removed legacy shop's job once the id is added again, and keeps the new shop's data", async () => {
    const { route } = await addShop('loja-legada');
    await storeAsPreviousRelease('loja-legada');
    const legacy = await other.directory.byId('loja-legada');
    if (!legacy) throw new Error('the legacy shop is served');
    expect(legacy.settings.incarnation).toBe('');
    expect((await admin('/shops/loja-legada', { method: 'DELETE' })).status).toBe(204);
    const added = await addShop('loja-legada', newPlatformAccount(h, 'loja-legada-2'));
    expect((await call(added.route, 1027, h.url)).status).toBe(202);
    await eventually(() => urlsSentBy(added.platform.email).at(-1));
    // A job the legacy shop queued (no incarnation in its data), run after the re-add.
    const raced = await requestCheckout(legacy.deps, 1028);
    if (raced.kind !== 'accepted') throw new Error(`the raced request was ${raced.kind}`);
    const job = await completedJob(
      h.connector.jobs.checkoutQueue,
      jobIds.produce(raced.checkoutId),
    );
    expect(job.returnvalue).toBe('dropped');
    await settled(h.connector.jobs);
    expect(urlsSentBy(added.platform.email).map((c) => c.serviceId)).toEqual([1027]);
    // The new shop's own checkout and breaker tag are untouched by the drop.
    const scope = await dataScopeOf(h, 'loja-legada');
    expect(await redis.exists(`{${h.prefix}:shop:${scope}}:chk-service:1027`)).toBe(1);
    expect((await call(route, 1029, h.url)).status).toBe(401);
  });

  it('serves a shop stored by the previous release, and its jobs, as they were', async () => {
    const { route } = await addShop('loja-antiga');
    await storeAsPreviousRelease('loja-antiga');
    // The upgrade's step: nothing of the previous release's layout to move.
    const migrated = await runCliCaptured(['migrate'], {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
    });
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain('nothing to migrate');
    const opened = await call(route, 1026, other.url);
    expect(opened.status).toBe(202);
    const { checkout_id: checkoutId } = (await opened.json()) as { checkout_id: string };
    const sent = await eventually(() =>
      h.simulator.accepted('checkout-url').find((c) => c.serviceId === 1026),
    );
    // Its job named no incarnation, as the previous release's jobs do, and was run, not dropped.
    const produced = await completedJob(h.connector.jobs.checkoutQueue, jobIds.produce(checkoutId));
    expect(produced.data).not.toHaveProperty('incarnation');
    expect(produced.returnvalue).not.toBe('dropped');
    expect((sent.body as { checkout_url: string }).checkout_url).toContain('chk_loja-antiga_');
    expect(await redis.keys(`{${h.prefix}:shop:loja-antiga}:chk-service:1026`)).toHaveLength(1);
  });
});
