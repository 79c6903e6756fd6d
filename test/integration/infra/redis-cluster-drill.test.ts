import { queuePrefix, shopTag } from '../../../src/redis/keyspace';
import { QUEUES } from '../../../src/jobs/queue-names';
import type { Harness } from '../../support/harness';
import { DRILL_ENV, drillServices, runFailoverDrill } from '../../support/failover-drill';
import { startHarnessOnCluster, type RedisClusterGroup } from '../../support/redis-cluster';

/*
 * The failover drill on a Redis Cluster (test/support/failover-drill.ts): checkouts sold three
 * at a time while a primary is killed with SIGKILL, in turn the one holding the shop's checkouts
 * and the one holding the finish/cancel queue (the killed node rejoins as a replica between):
 * every finish, no cancel, no second URL.
 */
/** Primaries killed in a row: 2 in `npm test`; `npm run soak:cluster` runs 20. */
const FAILOVERS = Number(process.env.DRILL_FAILOVERS ?? 2);

describe('a Redis Cluster failover drill', () => {
  let cluster: RedisClusterGroup;
  let h: Harness;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ cluster, h, stop } = await startHarnessOnCluster({
      env: DRILL_ENV,
      simulator: { serviceCount: drillServices(FAILOVERS).length + FAILOVERS },
      start: { produceBackoffMs: 100 },
    }));
  }, 90_000);
  afterAll(() => stop?.());

  it(
    'loses no finish, sends no cancel and no second URL through primaries killed in a row',
    () =>
      runFailoverDrill('cluster', h, FAILOVERS, async (round) => {
        // A key in the slot of the shop's data, then of the notifications queue, in turn.
        const key =
          round % 2 === 1
            ? `${shopTag(h.prefix, 'default')}:chk-due`
            : `${queuePrefix(h.prefix, QUEUES.notifications)}:${QUEUES.notifications}:meta`;
        const killed = await cluster.killPrimaryOf(key);
        await cluster.promoted(key, killed);
        return { rejoin: () => cluster.restart(killed) };
      }),
    120_000 + FAILOVERS * 30_000,
  );
});
