import { eventually, type Harness } from '../support/harness';
import { startHarnessOnSentinel, type SentinelGroup } from '../support/redis-sentinel';

/*
 * The connector on Sentinel (CONTRACT "Redis topologies"): REDIS_URL=redis+sentinel://..., a
 * primary with a replica and three Sentinels, each a real redis-server on loopback. The whole
 * flow runs; then the primary is killed with SIGKILL, the Sentinels promote the replica, and the
 * same processes, without a restart, take checkouts again and deliver every finish: one paid
 * before the failover, one opened before and paid after, one opened after.
 */
describe('the connector on Redis Sentinel', () => {
  let group: SentinelGroup;
  let h: Harness;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ group, h, stop } = await startHarnessOnSentinel({
      start: { produceBackoffMs: 100 },
    }));
  }, 60_000);
  afterAll(() => stop?.());

  const urlFor = (serviceId: number) =>
    eventually(() => h.simulator.checkoutUrlFor(serviceId), 30_000, `the URL of ${serviceId}`);
  const finished = (serviceId: number) =>
    eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === serviceId),
      30_000,
      `the finish of ${serviceId}`,
    );
  const pay = async (url: string) =>
    expect((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);

  it('runs the flow, and goes on through a failover without a restart, losing nothing', async () => {
    expect((await h.simulator.requestCheckout(1001)).status).toBe(202);
    const url1001 = await urlFor(1001);
    // The URL went out only after a replica held its checkout: the primary ran a WAIT.
    expect(await group.calls('wait')).toBeGreaterThanOrEqual(1);
    const waitsBeforePay = await group.calls('wait');
    await pay(url1001);
    expect(await group.calls('wait')).toBeGreaterThan(waitsBeforePay);
    await finished(1001);
    expect((await h.simulator.requestCheckout(1002)).status).toBe(202);
    const openedBefore = await urlFor(1002);

    // The test's own check that the replica has caught up with everything, acknowledged or not
    // (a job's bookkeeping too), before the primary dies.
    const old = await group.primaryPort();
    await group.synced();
    const killedAt = Date.now();
    await group.killPrimary();
    const promotedPort = await group.promoted(old);
    const promotedAt = Date.now();
    expect(promotedPort).not.toBe(old);

    // The route answers 503 REDIS_UNAVAILABLE while there is no primary, then 202 again.
    const accepted = await eventually(
      async () => {
        const answer = await h.simulator.requestCheckout(1003);
        if (answer.status === 202) return Date.now();
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ error: { code: 'REDIS_UNAVAILABLE' } });
        return undefined;
      },
      30_000,
      'a checkout accepted after the promotion',
    );
    console.log(
      `sentinel failover: primary killed, replica promoted after ${promotedAt - killedAt} ms; next checkout accepted ${Math.max(0, accepted - promotedAt)} ms after the promotion`,
    );
    await pay(openedBefore);
    await pay(await urlFor(1003));
    await finished(1002);
    await finished(1003);
    // One finish each: nothing delivered twice, nothing lost.
    const finishes = h.simulator.accepted('finish-checkout').map((c) => c.serviceId);
    expect(finishes.sort()).toEqual([1001, 1002, 1003]);
    // The promoted primary has no replica: nothing waits on one.
    expect(await group.calls('wait')).toBe(0);
  }, 120_000);
});
