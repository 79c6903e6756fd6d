import { once } from 'node:events';
import { Redis } from 'ioredis';
import { AppError } from '../../../src/errors';
import { serverPid, startPrivateRedis, type PrivateRedis } from '../../../src/demo/private-redis';
import {
  createRedis,
  isRedisUnavailable,
  type ConnectorCluster,
  type ConnectorConnection,
} from '../../../src/redis/redis';
import { REPLICAS_READ_FOR_MS, ReplicaWait } from '../../../src/redis/replica-wait';
import { eventually } from '../../support/harness';
import { startRedisCluster, type RedisClusterGroup } from '../../support/redis-cluster';
import { ask, commandCalls, listedReplicas } from '../../support/redis-topology';

/*
 * The replica wait (src/redis/replica-wait.ts) on a real primary and replica: a WAIT only where
 * a replica is in sync, REDIS_UNAVAILABLE when it does not confirm, and no wait at all (said once)
 * where the server refuses the commands it needs, as a managed service may.
 */
describe('waiting for a replica to hold the writes', () => {
  let primary: PrivateRedis;
  let replica: PrivateRedis | undefined;
  let client: Redis;

  const waits = async () => {
    return commandCalls(await client.info('commandstats'), 'wait');
  };

  /** Starts the replica (once) and waits until it is in sync. */
  const replicated = async (): Promise<PrivateRedis> => {
    const started = (replica ??= await startPrivateRedis({ replicaOf: primary.url }));
    await eventually(
      async () =>
        listedReplicas(await client.info('replication'))[0]?.state === 'online' ? true : undefined,
      10_000,
      'the replica in sync',
    );
    return started;
  };

  beforeAll(async () => {
    primary = await startPrivateRedis();
    client = new Redis(primary.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await replica?.close();
    await primary?.close();
  });

  it('waits only where a replica is in sync, and fails the step when it does not confirm', async () => {
    // A lone primary (when this runs first): nothing to wait for.
    const before = await waits();
    if (!replica) {
      await new ReplicaWait(client).held(['k']);
      expect(await waits()).toBe(before);
    }
    const inSync = await replicated();
    await client.set('k', 'v');
    await new ReplicaWait(client).held(['k']);
    expect(await waits()).toBe(before + 1);

    // A replica on a stalled machine: connected, never confirming.
    const pid = await serverPid(Number(new URL(inSync.url).port));
    if (!pid) throw new Error('no replica pid');
    process.kill(pid, 'SIGSTOP');
    try {
      await client.set('k', 'w');
      const failed = await new ReplicaWait(client, { timeoutMs: 200 }).held(['k']).catch((e) => e);
      expect(failed).toBeInstanceOf(AppError);
      expect(failed).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  }, 30_000);

  it('gives up on a primary that does not answer, as REDIS_UNAVAILABLE, never waiting forever', async () => {
    await replicated();
    // As a worker's connection is: its commands wait for the server, however long it takes.
    const patient = new Redis(primary.url, { maxRetriesPerRequest: null });
    await patient.set('k', 'v');
    const pid = await serverPid(Number(new URL(primary.url).port));
    if (!pid) throw new Error('no primary pid');
    process.kill(pid, 'SIGSTOP');
    try {
      // Neither INFO nor WAIT is answered: the wait ends by its own bound, and the caller retries.
      const failed = await new ReplicaWait(patient, { timeoutMs: 200 }).held(['k']).catch((e) => e);
      expect(failed).toBeInstanceOf(AppError);
      expect(failed).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    } finally {
      process.kill(pid, 'SIGCONT');
      patient.disconnect();
    }
  });

  it('shares WAITs between callers of the same moment, each covered', async () => {
    await replicated();
    const wait = new ReplicaWait(client);
    await wait.held(['k']);
    const before = await waits();
    // Fifty requests writing and waiting at once, as the route under load.
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        await client.set(`k${i}`, String(i));
        await wait.held(['k']);
      }),
    );
    const sent = (await waits()) - before;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(10);
    // And one caller alone, after them, gets a WAIT of its own.
    await client.set('alone', '1');
    await wait.held(['k']);
    expect((await waits()) - before).toBe(sent + 1);
  });

  it("reads the count of replicas off the callers' way, and waits on a replica once read in sync", async () => {
    const lone = await startPrivateRedis();
    const writer = new Redis(lone.url);
    let joined: PrivateRedis | undefined;
    try {
      // Time moves only by hand: what was read is as fresh as the test says.
      let now = 0;
      const wait = new ReplicaWait(writer, { clock: () => now });
      const stats = () => writer.info('commandstats');
      const waitsThere = async () => commandCalls(await stats(), 'wait');
      /** INFOs the server ran for `step`, this test's own read of the stats left out. */
      const infosFor = async (step: () => Promise<void>) => {
        const before = commandCalls(await stats(), 'info');
        await step();
        return commandCalls(await stats(), 'info') - before - 1;
      };
      // No replica: not waited on.
      await writer.set('k', '1');
      await wait.held(['k']);
      expect(await waitsThere()).toBe(0);
      joined = await startPrivateRedis({ replicaOf: lone.url });
      await eventually(
        async () =>
          listedReplicas(await writer.info('replication'))[0]?.state === 'online'
            ? true
            : undefined,
        10_000,
        'the replica in sync',
      );
      // "No replica" read a moment ago is taken as read: no INFO on the caller's way, no WAIT.
      const held = async () => {
        await writer.set('k', '2');
        await wait.held(['k']);
      };
      expect(await infosFor(held)).toBe(0);
      expect(await waitsThere()).toBe(0);
      // Once it is as old as "none" is taken for, the next caller has it read in the background
      // and goes on; a caller after the read lands is waited on.
      now += REPLICAS_READ_FOR_MS.none;
      await eventually(
        async () => {
          await held();
          return (await waitsThere()) > 0 ? true : undefined;
        },
        10_000,
        'a WAIT once the replica is read',
      );
      expect(await waitsThere()).toBe(1);
    } finally {
      writer.disconnect();
      await joined?.close();
      await lone.close();
    }
  });

  it('does not wait where the server refuses WAIT, and says so once', async () => {
    // A user without WAIT, as a managed service may give.
    await client.call('ACL', 'SETUSER', 'nowait', 'on', '>pw-nowait', '~*', '+@all', '-wait');
    const restricted = new Redis(primary.url, { username: 'nowait', password: 'pw-nowait' });
    try {
      await replicated();
      const warnings: string[] = [];
      const wait = new ReplicaWait(restricted, { warn: (message) => warnings.push(message) });
      const before = await waits();
      await restricted.set('k', 'x');
      await wait.held(['k']);
      await wait.held(['k']);
      expect(warnings).toHaveLength(1);
      expect(await waits()).toBe(before);
    } finally {
      restricted.disconnect();
    }
  });
});

/*
 * On a Redis Cluster the wait goes to the primaries that took the caller's writes, found by the
 * slot map the writes were routed by: not to every primary (one that is down fails only those
 * who wrote to it), and to a promoted replica as soon as writes go there.
 */
describe('waiting for a replica on a Redis Cluster', () => {
  let cluster: RedisClusterGroup;
  let client: ConnectorConnection;

  /** WAITs each primary has run, by port. */
  const waitsOn = async (port: number) => {
    return commandCalls(await ask(port, (c) => c.info('commandstats')), 'wait');
  };

  beforeAll(async () => {
    // The slots still covered serve while B's primary is down: with Redis's default (full coverage)
    // the whole cluster answers CLUSTERDOWN once B is marked failed, 2 s of node timeout after the
    // kill, and a slow machine got there before the writes to A were made.
    cluster = await startRedisCluster({ partial: true });
    client = createRedis(cluster.url, 'producer', 'replica-wait-test');
    client.on('error', () => undefined);
    await once(client, 'ready');
  }, 60_000);
  afterAll(async () => {
    (client as ConnectorCluster | undefined)?.disconnectAll();
    await cluster?.close();
  });

  it('waits where the writes went, passes a dead primary it did not write to, and follows a promotion', async () => {
    // Two keys on two different primaries.
    const keys = Array.from({ length: 50 }, (_, i) => `{tag${i}}:k`);
    const owners = await Promise.all(keys.map((key) => cluster.primaryOf(key)));
    const a = keys[0] ?? '';
    const portA = owners[0] ?? 0;
    const b = keys[owners.findIndex((port) => port !== portA)] ?? '';
    const portB = await cluster.primaryOf(b);
    expect(portB).not.toBe(portA);
    const others = (await cluster.primaries()).filter((port) => port !== portA);

    /** `held` for `key`, retried while the client knows no primary for it (a caller's retry). */
    const heldOnceKnown = (key: string) =>
      eventually(
        () =>
          new ReplicaWait(client).held([key]).then(
            () => true,
            (error: unknown) => {
              if (isRedisUnavailable(error) && /No Redis primary is known/.test(String(error)))
                return undefined;
              throw error;
            },
          ),
        10_000,
        `a primary known for ${key}`,
      );
    // One write, one WAIT, on its primary only.
    const before = await Promise.all([portA, ...others].map(waitsOn));
    await client.set(a, '1');
    await new ReplicaWait(client).held([a]);
    const after = await Promise.all([portA, ...others].map(waitsOn));
    expect(after.map((count, i) => count - (before[i] ?? 0))).toEqual([1, 0, 0]);

    // B's primary dies. A caller who wrote to A is held all the same; one who wrote to B is not.
    // B's replica is held from taking over until that is seen: on a slow machine it would
    // otherwise be promoted (2 s of node timeout) before the wait for B is asked.
    await cluster.synced();
    const releaseFailover = await cluster.holdFailoverOf(b);
    const killed = await cluster.killPrimaryOf(b);
    // A command to B's slot makes the client look at the slot map again, which still names B.
    await client.get(b).catch(() => undefined);
    await client.set(a, '2');
    await new ReplicaWait(client).held([a]);
    const failed = await new ReplicaWait(client, { timeoutMs: 200 }).held([b]).catch((e) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(isRedisUnavailable(failed)).toBe(true);

    // B's replica is promoted: writes to B go there, and so does the wait. Without a replica of
    // its own yet it is not waited on; once the killed node rejoins as its replica, it is.
    await releaseFailover();
    const promoted = await cluster.promoted(b, killed);
    await eventually(
      () =>
        client.set(b, '3').then(
          () => true,
          () => undefined,
        ),
      10_000,
      'a write to B',
    );
    const lone = await waitsOn(promoted);
    // The client learns the promoted node from the redirect a moment before it holds a
    // connection to it: meanwhile `held` answers REDIS_UNAVAILABLE (no primary known), which a
    // caller retries, as here.
    await heldOnceKnown(b);
    expect(await waitsOn(promoted)).toBe(lone);
    await cluster.restart(killed);
    // In sync as the promoted primary sees it (state=online), not only as the replica does.
    await cluster.synced();
    await client.set(b, '4');
    await heldOnceKnown(b);
    expect(await waitsOn(promoted)).toBe(lone + 1);
    expect(await ask(killed, (c) => c.call('GET', b).catch((e: Error) => e.message))).toMatch(
      /^MOVED/,
    );
  }, 90_000);
});
