import { Redis } from 'ioredis';
import { startPrivateRedis, type PrivateRedis } from '../../../src/demo/private-redis';
import { REPLICAS_READ_FOR_MS } from '../../../src/redis/replica-wait';
import { eventually, startHarness, type Harness } from '../../support/harness';
import { monitorRedis } from '../../support/redis-monitor';
import { commandCalls, listedReplicas } from '../../support/redis-topology';

/*
 * What the checkout route asks Redis about its replicas (docs/redis.md, "What a failover
 * costs"): never their count on a request's way (`INFO replication` is
 * read in the background, at most once per REPLICAS_READ_FOR_MS.none), and a `WAIT` before the
 * 202 once a replica is in sync, none without one.
 */
describe("the checkout route's reads of Redis's replicas", () => {
  let h: Harness;
  let redis: Redis;
  let nextService = 1001;

  const requestCheckouts = (count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const answer = await h.simulator.requestCheckout(nextService++);
        expect(answer.status).toBe(202);
      }),
    );
  const waits = async () => commandCalls(await redis.info('commandstats'), 'wait');

  beforeAll(async () => {
    h = await startHarness({ privateRedis: true, simulator: { serviceCount: 400 } });
    redis = new Redis(h.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await h?.stop();
  });

  it('sends no INFO on a request’s way: the count of replicas is read aside, now and then', async () => {
    await requestCheckouts(1);
    const monitor = await monitorRedis(h.redis.url);
    let reads = 0;
    monitor.onCommand(({ args }) => {
      const [command, section] = args.map((arg) => arg.toLowerCase());
      if (command === 'info' && section === 'replication') reads += 1;
    });
    try {
      const startedAt = Date.now();
      // One at a time (each a read of its own, were it read on the way), then in bursts.
      for (let i = 0; i < 40; i++) await requestCheckouts(1);
      for (let i = 0; i < 3; i++) await requestCheckouts(50);
      await monitor.caughtUp(redis);
      const elapsedMs = Date.now() - startedAt;
      // The process's reads aside: one per REPLICAS_READ_FOR_MS.none at most, and one that may
      // have been on its way when this began. Read on the way, each request alone would make one,
      // and a burst one after the other all along.
      expect(reads).toBeLessThanOrEqual(Math.floor(elapsedMs / REPLICAS_READ_FOR_MS.none) + 2);
    } finally {
      await monitor.close();
    }
  });

  it('WAITs for a replica before answering once one is in sync, and not once it is gone', async () => {
    await requestCheckouts(1);
    const alone = await waits();
    await requestCheckouts(5);
    expect(await waits()).toBe(alone);
    let replica: PrivateRedis | undefined = await startPrivateRedis({ replicaOf: h.redis.url });
    try {
      await eventually(
        async () =>
          listedReplicas(await redis.info('replication'))[0]?.state === 'online' ? true : undefined,
        10_000,
        'the replica in sync',
      );
      // Read aside within REPLICAS_READ_FOR_MS.none of a request that finds "none" that old.
      await eventually(
        async () => {
          const before = await waits();
          await requestCheckouts(1);
          return (await waits()) > before ? true : undefined;
        },
        10_000,
        'a WAIT before the 202',
      );
    } finally {
      await replica.close();
      replica = undefined;
    }
    // The replica gone, a WAIT fails (the platform asks again) and the count is read again: the
    // route answers without waiting once more.
    await eventually(
      async () => {
        const before = await waits();
        const answer = await h.simulator.requestCheckout(nextService++);
        return answer.status === 202 && (await waits()) === before ? true : undefined;
      },
      20_000,
      'a 202 without a WAIT',
    );
  });
});
