import { eventually, type Harness } from '../../support/harness';
import { startHarnessOnSentinel, type SentinelGroup } from '../../support/redis-sentinel';
import { acceptedAfterFailover } from '../../support/redis-topology';

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
    // What the promoted server ran before (it may have been the primary once): the count from here.
    const waitsAtPromotion = await group.calls('wait');

    // The route answers 503 REDIS_UNAVAILABLE while there is no primary, then 202 again.
    const accepted = await acceptedAfterFailover(h, 1003);
    console.log(
      `sentinel failover: primary killed, replica promoted after ${promotedAt - killedAt} ms; next checkout accepted ${Math.max(0, accepted - promotedAt)} ms after the promotion`,
    );
    await pay(openedBefore);
    await pay(await urlFor(1003));
    await finished(1002);
    await finished(1003);
    // One finish each: nothing delivered twice, nothing lost.
    const finishes = h.simulator
      .accepted('finish-checkout')
      .map((c) => c.serviceId)
      .filter((serviceId) => serviceId !== undefined && serviceId >= 1001 && serviceId <= 1003);
    expect(finishes.sort()).toEqual([1001, 1002, 1003]);
    // The promoted primary has no replica: nothing waits on one.
    expect(await group.calls('wait')).toBe(waitsAtPromotion);
    // The killed server rejoins as a replica, for the other tests, in whatever order they run.
    await group.restart(old);
  }, 120_000);

  it('goes on when the primary hangs rather than dies, without a restart', async () => {
    expect((await h.simulator.requestCheckout(1030)).status).toBe(202);
    const openedBefore = await urlFor(1030);
    await group.synced();
    const frozen = await group.freezePrimary();
    try {
      const promotedPort = await group.promoted(frozen.port);
      const promotedAt = Date.now();
      expect(promotedPort).not.toBe(frozen.port);
      // The connections to the frozen primary are open but unanswered: each is taken for dead
      // once a command waits past its socket timeout, and reconnects to the promoted primary.
      const accepted = await acceptedAfterFailover(h, 1031);
      console.log(
        `sentinel, hung primary: next checkout accepted ${Math.max(0, accepted - promotedAt)} ms after the promotion`,
      );
      await pay(openedBefore);
      await pay(await urlFor(1031));
      await finished(1030);
      await finished(1031);
    } finally {
      // Thawed, the old primary finds it was replaced, and the Sentinels make it a replica.
      await frozen.thaw();
    }
    for (const serviceId of [1030, 1031]) {
      const finishes = h.simulator
        .accepted('finish-checkout')
        .filter((c) => c.serviceId === serviceId);
      expect(finishes).toHaveLength(1);
    }
  }, 120_000);

  it('answers 503 while no replica confirms a checkout, and accepts it once one does', async () => {
    // The connector reads the replicas once a second: wait until it waits on the one there is
    // (a repeat of an open checkout only sends its URL again).
    expect((await h.simulator.requestCheckout(1019)).status).toBe(202);
    await eventually(
      async () => {
        const before = await group.calls('wait');
        expect((await h.simulator.requestCheckout(1019)).status).toBe(202);
        return (await group.calls('wait')) > before ? true : undefined;
      },
      10_000,
      'a WAIT on the replica',
    );
    const thaw = await group.freezeReplicas();
    try {
      const refused = await h.simulator.requestCheckout(1020);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: { code: 'REDIS_UNAVAILABLE' } });
    } finally {
      thaw();
    }
    // The platform asks again: the same checkout, held now, and its one URL.
    const accepted = await h.simulator.requestCheckout(1020);
    expect(accepted.status).toBe(202);
    await urlFor(1020);
    const urls = h.simulator.accepted('checkout-url').filter((c) => c.serviceId === 1020);
    expect(new Set(urls.map((c) => (c.body as { checkout_url: string }).checkout_url)).size).toBe(
      1,
    );
  }, 60_000);
});
