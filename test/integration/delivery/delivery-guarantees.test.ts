import { newCheckoutId } from '../../../src/checkout/checkout-record';
import { closeRedis, createRedis } from '../../../src/redis/redis';
import type { SandboxProvider } from '../../../src/payments/sandbox/sandbox-provider';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import {
  completedJob,
  eventually,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';

const checkoutIdOf = (answer: { body: unknown }) =>
  (answer.body as { checkout_id: string }).checkout_id;

describe('delivery guarantees', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { RECONCILE_INTERVAL_MS: '300' } });
  });
  afterAll(() => h.stop());

  const accepted = (endpoint: 'finish-checkout' | 'cancel-checkout', serviceId: number) =>
    h.simulator.accepted(endpoint).filter((c) => c.serviceId === serviceId);
  const pay = async (serviceId: number, action: 'pay' | 'decline' = 'pay') => {
    const answer = await h.simulator.requestCheckout(serviceId);
    const url = await eventually(
      () => h.simulator.checkoutUrlFor(serviceId),
      WAIT_DEADLINE_MS,
      'url',
    );
    await fetch(`${url}/${action}`, { method: 'POST', redirect: 'manual' });
    return checkoutIdOf(answer);
  };

  it('makes a repeated outcome a no-op even after its job was removed from Redis', async () => {
    const checkoutId = await pay(1001);
    await eventually(() => accepted('finish-checkout', 1001)[0]);
    const job = await completedJob(h.connector.jobs.notificationQueue, `finish-${checkoutId}`);
    await job.remove();
    await h.connector.deps.jobs.notify({ checkoutId, kind: 'finish' });
    const again = await completedJob(h.connector.jobs.notificationQueue, `finish-${checkoutId}`);
    expect(again.returnvalue).toBe('duplicate');
    expect(accepted('finish-checkout', 1001)).toHaveLength(1);
  });

  it('never sends a cancel after the finish of the same checkout', async () => {
    const checkoutId = await pay(1002);
    await eventually(() => accepted('finish-checkout', 1002)[0]);
    await h.connector.deps.jobs.notify({ checkoutId, kind: 'cancel' });
    const job = await completedJob(h.connector.jobs.notificationQueue, `cancel-${checkoutId}`);
    expect(job.returnvalue).toBe('duplicate');
    expect(accepted('cancel-checkout', 1002)).toHaveLength(0);
  });

  it('drops, and records, a stale cancel when a newer checkout of the service was paid', async () => {
    h.simulator.faults.add({ match: '/payment/cancel-checkout', status: 503 });
    const declined = await pay(1003, 'decline');
    const firstUrl = h.simulator.checkoutUrlFor(1003);
    await eventually(() =>
      h.simulator.arrivals.some((a) => a.path === '/payment/cancel-checkout') ? true : undefined,
    );
    const second = checkoutIdOf(await h.simulator.requestCheckout(1003));
    const secondUrl = await eventually(() => {
      const url = h.simulator.checkoutUrlFor(1003);
      return url !== firstUrl ? url : undefined;
    });
    await fetch(`${secondUrl}/pay`, { method: 'POST', redirect: 'manual' });
    await eventually(() => accepted('finish-checkout', 1003)[0]);
    h.simulator.faults.clear();
    const job = await completedJob(h.connector.jobs.notificationQueue, `cancel-${declined}`);
    expect(job.returnvalue).toBe('superseded');
    const paid = second;
    expect(accepted('cancel-checkout', 1003)).toHaveLength(0);
    expect(
      h.log
        .entries()
        .some(
          (e) =>
            e.message === 'stale cancel dropped: a newer checkout of the service was paid' &&
            e.paidCheckoutId === paid,
        ),
    ).toBe(true);
  });

  it('heals a lost webhook: the reconciler reads the provider and delivers the finish', async () => {
    const answer = await h.simulator.requestCheckout(1004);
    const checkoutId = checkoutIdOf(answer);
    await eventually(() => h.simulator.checkoutUrlFor(1004));
    // The provider took the payment, but its notification never reached the connector.
    const sandbox = h.connector.deps.provider as unknown as {
      settle(id: string, o: 'paid'): Promise<unknown>;
    };
    await sandbox.settle(checkoutId, 'paid');
    const finish = await eventually(
      () => accepted('finish-checkout', 1004)[0],
      WAIT_DEADLINE_MS,
      'finish from the reconciler',
    );
    expect(finish.body).toMatchObject({
      service_id: 1004,
      transaction_id: expect.stringMatching(/^sbx_pay_/),
    });
  });

  it('respects Retry-After on 429 before delivering', async () => {
    h.simulator.faults.add({
      match: '/payment/finish-checkout',
      status: 429,
      retryAfterS: 2,
      times: 1,
    });
    const before = h.simulator.arrivals.length;
    await pay(1005);
    const finish = await eventually(
      () => accepted('finish-checkout', 1005)[0],
      WAIT_DEADLINE_MS,
      'finish after Retry-After',
    );
    const refused = h.simulator.arrivals
      .slice(before)
      .find((a) => a.path === '/payment/finish-checkout');
    expect(refused).toBeDefined();
    expect(Date.parse(finish.receivedAt) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(1900);
  });

  it('reports an unreadable record at error level and in its metric, and heals the rest', async () => {
    const redis = createRedis(h.redis.url, 'worker', 'test');
    try {
      // A record no version of the connector wrote, at the head of the reconciler's line.
      const keys = checkoutKeys(h.prefix, 'default');
      const unreadable = newCheckoutId();
      const now = new Date().toISOString();
      await redis.hset(keys.record(unreadable), {
        checkoutId: unreadable,
        serviceId: '1011',
        state: 'bogus',
        provider: 'sandbox',
        createdAt: now,
        updatedAt: now,
        expiresAt: now,
      });
      await redis.zadd(keys.due, 0, unreadable);
      // Behind it in line: a checkout paid at the provider whose webhook never came.
      const answer = await h.simulator.requestCheckout(1012);
      await eventually(() => h.simulator.checkoutUrlFor(1012), WAIT_DEADLINE_MS, 'url');
      const sandbox = h.connector.deps.provider as SandboxProvider;
      await sandbox.settle(checkoutIdOf(answer), 'paid');
      const finish = await eventually(
        () => accepted('finish-checkout', 1012)[0],
        WAIT_DEADLINE_MS,
        'finish from the reconciler',
      );
      expect(finish.idempotencyKey).toBe(`finish:${checkoutIdOf(answer)}`);
      const reported = await eventually(
        () =>
          h.log
            .entries()
            .find((e) => e.message === 'unreadable checkout record' && e.checkoutId === unreadable),
        WAIT_DEADLINE_MS,
        'the unreadable record to be reported',
      );
      expect(reported).toMatchObject({
        level: 'error',
        problem: 'state: bogus is no checkout state',
      });
      // Counted once the pass is over, a moment after its log line: wait for it too.
      const counted = /^connector_reconcile_unreadable_records_total [1-9]\d*$/m;
      await eventually(
        async () =>
          counted.test(await (await fetch(`${h.url}/metrics`)).text()) ? true : undefined,
        undefined,
        'the unreadable record in its metric',
      );
    } finally {
      await closeRedis(redis);
    }
  });

  it('exposes delivery metrics', async () => {
    // A delivery and a duplicate of its own, whatever ran before.
    const checkoutId = await pay(1010);
    await eventually(() => accepted('finish-checkout', 1010)[0]);
    await completedJob(h.connector.jobs.notificationQueue, `finish-${checkoutId}`).then((job) =>
      job.remove(),
    );
    await h.connector.deps.jobs.notify({ checkoutId, kind: 'finish' });
    await completedJob(h.connector.jobs.notificationQueue, `finish-${checkoutId}`);
    const text = await (await fetch(`${h.url}/metrics`)).text();
    expect(text).toMatch(
      /connector_notification_attempts_total\{shop="default",kind="finish",result="delivered"\} [1-9]/,
    );
    expect(text).toMatch(
      /connector_notification_attempts_total\{shop="default",kind="finish",result="duplicate"\} [1-9]/,
    );
    expect(text).toMatch(/connector_notification_delivery_seconds_count\{kind="finish"\} [1-9]/);
    expect(text).toMatch(/connector_queue_jobs\{queue="notifications",state="failed"\} 0/);
    expect(text).toMatch(/connector_queue_oldest_waiting_seconds\{queue="notifications"\} \d/);
  });
});
