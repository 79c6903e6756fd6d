import type { Harness } from '../../support/harness';
import { DRILL_ENV, drillServices, runFailoverDrill } from '../../support/failover-drill';
import { startHarnessOnSentinel, type SentinelGroup } from '../../support/redis-sentinel';

/*
 * The failover drill on Sentinel (test/support/failover-drill.ts): checkouts sold three at a
 * time while the primary is killed with SIGKILL, twice (the first one rejoins as a replica
 * between): every finish, no cancel, no second URL.
 */
/** Primaries killed in a row: 2 in `npm test`; `npm run soak:sentinel` runs 20. */
const FAILOVERS = Number(process.env.DRILL_FAILOVERS ?? 2);

describe('a Sentinel failover drill', () => {
  let group: SentinelGroup;
  let h: Harness;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ group, h, stop } = await startHarnessOnSentinel({
      env: DRILL_ENV,
      simulator: { serviceCount: drillServices(FAILOVERS).length + FAILOVERS },
      start: { produceBackoffMs: 100 },
    }));
  }, 60_000);
  afterAll(() => stop?.());

  it(
    'loses no finish, sends no cancel and no second URL through primaries killed in a row',
    () =>
      runFailoverDrill('sentinel', h, FAILOVERS, async () => {
        const killed = await group.killPrimary();
        await group.promoted(killed);
        return { rejoin: () => group.restart(killed) };
      }),
    120_000 + FAILOVERS * 30_000,
  );
});
