import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { shopTag } from '../../../src/redis/keyspace';
import { createRedis, type ConnectorCluster } from '../../../src/redis/redis';
import { runCliCaptured } from '../../support/cli';
import { eventually, type Harness } from '../../support/harness';
import {
  startHarnessOnCluster,
  startRedisCluster,
  type RedisClusterGroup,
} from '../../support/redis-cluster';
import {
  acceptedAfterFailover,
  ask,
  commandCalls,
  disconnectWhileReconnecting,
  listedReplicas,
} from '../../support/redis-topology';
import { adminApi, dataScopeOf, openCheckoutOfNewShop } from '../../support/registry-shop';

/*
 * The connector on a Redis Cluster (CONTRACT "Redis topologies"): REDIS_URL=redis+cluster://...,
 * three primaries with a replica each, every one a real redis-server on loopback. The product's
 * flows run on it (the route, the sandbox, finish and cancel, a registry shop and its removal
 * with its data, the rate limiter, readiness, the CLI, migrate); then the primary that holds the
 * env shop's data is killed with SIGKILL, the cluster promotes its replica, and the same
 * processes take checkouts again and deliver every finish.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const SHOP_KEY = `k1:${randomBytes(32).toString('base64')}`;
const DASHBOARD_PASSWORD = `dash-${randomBytes(12).toString('hex')}`;

describe('the connector on a Redis Cluster', () => {
  let cluster: RedisClusterGroup;
  let h: Harness;
  let stop: () => Promise<void>;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    ({ cluster, h, stop } = await startHarnessOnCluster({
      start: { produceBackoffMs: 100 },
      env: {
        ADMIN_TOKEN,
        SHOP_SECRET_KEYS: SHOP_KEY,
        RATE_LIMIT_CHECKOUT_FAILURES: '3',
        DASHBOARD_USER: 'ops',
        DASHBOARD_PASSWORD: DASHBOARD_PASSWORD,
      },
    }));
    cliEnv = { REDIS_URL: cluster.url, QUEUE_PREFIX: h.prefix };
  }, 90_000);
  afterAll(() => stop?.());

  const urlFor = (serviceId: number, account?: string) =>
    eventually(
      () => {
        const call = h.simulator
          .accepted('checkout-url')
          .filter((c) => c.serviceId === serviceId && (!account || c.account === account))
          .at(-1);
        return (call?.body as { checkout_url?: string } | undefined)?.checkout_url;
      },
      30_000,
      `the URL of ${serviceId}`,
    );
  const reported = (kind: 'finish-checkout' | 'cancel-checkout', serviceId: number) =>
    eventually(
      () => h.simulator.accepted(kind).find((c) => c.serviceId === serviceId),
      30_000,
      `the ${kind} of ${serviceId}`,
    );
  const press = async (url: string, button: 'pay' | 'decline') =>
    expect((await fetch(`${url}/${button}`, { method: 'POST', redirect: 'manual' })).status).toBe(
      303,
    );

  it('runs the flow: a paid checkout is finished, a declined one cancelled, each once', async () => {
    // The primary holding the shop's checkouts, and whether it has a replica in sync: it has,
    // unless the failover test ran first and left its promoted replica alone.
    const shopPrimary = await cluster.primaryOf(`${shopTag(h.prefix, 'default')}:chk-due`);
    const waitsThere = async () =>
      commandCalls(await ask(shopPrimary, (c) => c.info('commandstats')), 'wait');
    const replicated = listedReplicas(await ask(shopPrimary, (c) => c.info('replication'))).some(
      (replica) => replica.state === 'online',
    );
    const waitsBefore = await waitsThere();
    expect((await h.simulator.requestCheckout(1001)).status).toBe(202);
    const paid = await urlFor(1001);
    // The URL went out only after a WAIT there, where a replica could take the checkout over.
    expect({ replicated, waited: (await waitsThere()) > waitsBefore }).toEqual({
      replicated,
      waited: replicated,
    });
    await press(paid, 'pay');
    await reported('finish-checkout', 1001);
    expect((await h.simulator.requestCheckout(1002)).status).toBe(202);
    await press(await urlFor(1002), 'decline');
    await reported('cancel-checkout', 1002);
    // A repeat call while 1001 is paid is refused; nothing was reported twice.
    expect((await h.simulator.requestCheckout(1001)).status).toBe(409);
    expect(
      h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1001),
    ).toHaveLength(1);

    // Its story and the failed set, read by the CLI on the cluster.
    const story = await runCliCaptured(['checkout', 'status', '1001', '--format', 'json'], cliEnv);
    expect(story).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(story.stdout)).toEqual([
      expect.objectContaining({ outcome: 'paid', state: 'reported' }),
    ]);
    // Its evidence too: the CLI opens the sync queue as well, and closes both once ready.
    const evidence = await runCliCaptured(
      ['checkout', 'evidence', '1001', '--format', 'json'],
      cliEnv,
    );
    expect(evidence).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(evidence.stdout)).toMatchObject({
      checkouts: [expect.objectContaining({ outcome: 'paid', erp_records: [expect.anything()] })],
    });
    const failed = await runCliCaptured(['notifications', 'failed', '--format', 'json'], cliEnv);
    expect(failed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(failed.stdout)).toEqual([]);
  }, 90_000);

  it('answers readiness, limits a guessing client, shows its queues, has nothing to migrate', async () => {
    expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
    // RATE_LIMIT_CHECKOUT_FAILURES=3: the counter lives in the cluster (its script loaded on the
    // primaries); the platform's own calls, with the token, are never counted.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${h.url}/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer not-the-token' },
        body: JSON.stringify({ service_id: 1004 }),
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // The queue dashboard reads every queue from the cluster.
    const dashboard = await fetch(`${h.url}/admin/queues/api/queues?activeQueue=notifications`, {
      headers: {
        authorization: `Basic ${Buffer.from(`ops:${DASHBOARD_PASSWORD}`).toString('base64')}`,
      },
    });
    expect(dashboard.status).toBe(200);
    const { queues } = (await dashboard.json()) as { queues: Array<{ name: string }> };
    expect(queues.map((queue) => queue.name).sort()).toEqual([
      'checkout',
      'notifications',
      'providers',
    ]);
    const migrate = await runCliCaptured(['migrate'], cliEnv);
    expect(migrate).toMatchObject({ code: 0, stderr: '' });
    expect(migrate.stdout).toContain('nothing to migrate');
  }, 60_000);

  it('serves a registry shop under its own tag, and removes it with its data', async () => {
    const admin = adminApi(h, ADMIN_TOKEN);
    const platform = {
      email: 'loja-cluster@shops.example.com',
      password: `pw-${randomBytes(6).toString('hex')}`,
      apiKey: `key-${randomBytes(6).toString('hex')}`,
    };
    await openCheckoutOfNewShop(
      h,
      ADMIN_TOKEN,
      { id: 'loja-cluster', name: 'Loja Cluster', platform },
      1005,
    );
    await press(await urlFor(1005, platform.email), 'pay');
    await eventually(
      () =>
        h.simulator
          .accepted('finish-checkout')
          .find((c) => c.account === platform.email && c.serviceId === 1005),
      30_000,
      "the registry shop's finish",
    );
    const tag = shopTag(h.prefix, await dataScopeOf(h, 'loja-cluster'));
    expect(await keysUnder(tag)).toBeGreaterThan(0);

    // Removed with its data: the keys of its tag are gone from whichever primary held them.
    await eventually(
      async () =>
        (await admin('/shops/loja-cluster', { method: 'DELETE' })).status === 204
          ? true
          : undefined,
      30_000,
      'the shop removed',
    );
    expect(await keysUnder(tag)).toBe(0);
  }, 90_000);

  /** How many keys under `tag` the cluster's primaries hold. */
  const keysUnder = async (tag: string) => (await cluster.keys(`${tag}:*`)).length;

  it('goes on through the failover of the primary holding the shop, losing nothing', async () => {
    const shopKey = `${shopTag(h.prefix, 'default')}:chk-due`;
    expect((await h.simulator.requestCheckout(1010)).status).toBe(202);
    const openedBefore = await urlFor(1010);

    await cluster.synced();
    const killedAt = Date.now();
    const old = await cluster.killPrimaryOf(shopKey);
    const promotedPort = await cluster.promoted(shopKey, old);
    const promotedAt = Date.now();
    expect(promotedPort).not.toBe(old);

    // The route answers 503 REDIS_UNAVAILABLE while the shop's slots have no primary, then 202.
    const accepted = await acceptedAfterFailover(h, 1011);
    console.log(
      `cluster failover: primary killed, replica promoted after ${promotedAt - killedAt} ms; next checkout accepted ${Math.max(0, accepted - promotedAt)} ms after the promotion`,
    );
    // Every slot served again: ready.
    await eventually(
      async () => ((await fetch(`${h.url}/readyz`)).status === 200 ? true : undefined),
      30_000,
      'ready again',
    );
    await press(openedBefore, 'pay');
    await press(await urlFor(1011), 'pay');
    await reported('finish-checkout', 1010);
    await reported('finish-checkout', 1011);
    for (const serviceId of [1010, 1011]) {
      expect(
        h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === serviceId),
      ).toHaveLength(1);
    }
  }, 120_000);
});

describe('a Cluster connection whose nodes are all gone', () => {
  it('ends at once when asked, rejecting what it queued, and so does its copy', async () => {
    const group = await startRedisCluster();
    const client = createRedis(group.url, 'worker', 'ending');
    client.on('error', () => undefined);
    try {
      await once(client, 'ready');
      // BullMQ asks for its copies this way (an options object where ioredis takes seed nodes).
      const copy = (client as ConnectorCluster).duplicate([], { lazyConnect: false });
      copy.on('error', () => undefined);
      await once(copy, 'ready');
      // events.once would reject on the 'error' of a refused reconnect: listen by hand.
      const reconnecting = new Promise((resolve) => copy.once('reconnecting', resolve));
      await group.close();
      // ioredis connects to a node at its first command: each one tried fails and is dropped,
      // and a Cluster with no node left waits to reconnect.
      for (const node of copy.nodes('all')) node.ping().catch(() => undefined);
      await reconnecting;
      expect(await disconnectWhileReconnecting(copy)).toMatch(
        /Connection is closed|None of startup nodes is available/,
      );
    } finally {
      (client as ConnectorCluster).disconnectAll();
      await group.close();
    }
  }, 60_000);
});

describe('a Cluster connection asked to connect while the cluster is failing over', () => {
  it('settles its connect() once the cluster is whole again, though the first ready check found it failed', async () => {
    const group = await startRedisCluster();
    const client = createRedis(group.url, 'worker', 'connecting') as ConnectorCluster;
    client.on('error', () => undefined);
    let deadline: NodeJS.Timeout | undefined;
    try {
      await once(client, 'ready');
      const killed = await group.killPrimaryOf('{any}:key');
      // The survivors mark it failed (cluster_state:fail) until its replica is promoted.
      await eventually(
        async () => {
          for (const port of await group.primaries()) {
            if (port === killed) continue;
            const info = await ask(port, (c) => c.call('CLUSTER', 'INFO')).catch(() => '');
            if (/cluster_state:fail/.test(String(info))) return true;
          }
          return undefined;
        },
        30_000,
        'the cluster to say it failed',
      );
      // As BullMQ's worker does after a blocking read went unanswered: disconnect, connect again.
      const ended = once(client, 'end');
      client.disconnect();
      await ended;
      const outcome = await Promise.race([
        client.connect().then(
          () => 'connected',
          (error: Error) => `failed: ${error.message}`,
        ),
        new Promise<string>((resolve) => {
          deadline = setTimeout(() => resolve('still pending'), 30_000);
        }),
      ]);
      expect(outcome).toBe('connected');
      expect(client.status).toBe('ready');
    } finally {
      clearTimeout(deadline);
      client.disconnectAll();
      await group.close();
    }
  }, 90_000);
});
