import { syncCheckout } from '../../../src/checkout/settle-checkout';
import {
  deliverForShop,
  produceForShop,
  type DeliveryCollaborators,
} from '../../../src/delivery/deliver-behind-breaker';
import type { DeliveryMeters, JobControl } from '../../../src/delivery/ports';
import { ShopBreaker } from '../../../src/delivery/shop-breaker';
import { AppError } from '../../../src/errors';
import { RedisShopBreakers } from '../../../src/store/redis-shop-breaker';
import { useCaseSuite } from '../../support/checkout-deps';
import { captureLog } from '../../support/log-capture';

/*
 * The delivery use cases on their own: the shop's real collaborators (a real Redis, the platform
 * simulator), a real breaker on the same Redis with a clock the test moves and no spread, and the
 * job runtime's one power (holding a job without spending an attempt) played by the test.
 */

const COOLDOWN_MS = 60_000;
const ENQUEUED_AT_MS = Date.parse('2026-11-20T11:59:00Z');

/** Thrown by the test's JobControl where the runtime would move the job back to delayed. */
class Held extends Error {}

/** The job runtime as the test plays it: every hold is recorded, and ends the run. */
function heldJob(): { control: JobControl; holds: { untilMs: number; otherwise: unknown }[] } {
  const holds: { untilMs: number; otherwise: unknown }[] = [];
  return {
    holds,
    control: {
      holdUntil: async (untilMs, otherwise) => {
        holds.push({ untilMs, otherwise });
        throw new Held();
      },
    },
  };
}

/** Counters that keep what they were told, in order. */
function recordedMeters() {
  const told = {
    attempts: [] as { shop: string; kind: string; result: string }[],
    held: [] as { shop: string }[],
    latency: [] as { kind: string; seconds: number }[],
  };
  const meters: DeliveryMeters = {
    notificationAttempts: { inc: (labels) => told.attempts.push(labels) },
    notificationsHeld: { inc: (labels) => told.held.push(labels) },
    notificationLatency: {
      observe: (labels, seconds) => told.latency.push({ ...labels, seconds }),
    },
  };
  return { meters, told };
}

describe('deliverForShop and produceForShop, behind the shop breaker', () => {
  const suite = useCaseSuite();
  const platform = () => suite.platform.simulator;
  afterEach(() => platform().faults.clear());
  /** The finishes of a checkout the platform took (the simulator serves the whole file). */
  const finishesOf = (checkoutId: string) =>
    platform()
      .accepted('finish-checkout')
      .filter((call) => call.idempotencyKey === `finish:${checkoutId}`);

  function delivery() {
    const w = suite.world;
    const nowMs = () => w.now.getTime();
    const log = captureLog();
    const breaker = new ShopBreaker(
      new RedisShopBreakers(w.redis, w.prefix),
      { failures: 2, cooldownMs: COOLDOWN_MS },
      log.logger,
      nowMs,
      () => 0,
    );
    const { meters, told } = recordedMeters();
    const shared: DeliveryCollaborators = { breaker, meters, log: log.logger, nowMs };
    const job = heldJob();
    const deliver = (checkoutId: string) =>
      deliverForShop(
        w.deps,
        { shop: 'default', checkoutId, kind: 'finish' },
        { enqueuedAtMs: ENQUEUED_AT_MS, control: job.control },
        shared,
      );
    return { breaker, told, holds: job.holds, deliver, log };
  }

  /** A checkout paid at the provider and recorded so: its finish is due. */
  async function paidCheckout(): Promise<string> {
    const checkoutId = await suite.checkout();
    await suite.world.sandbox.settle(checkoutId, 'paid');
    await syncCheckout(suite.world.deps, checkoutId);
    return checkoutId;
  }

  it('delivers, counts the attempt and its latency, and holds nothing', async () => {
    const d = delivery();
    const checkoutId = await paidCheckout();
    await expect(d.deliver(checkoutId)).resolves.toBe('delivered');
    expect(d.told.attempts).toEqual([{ shop: 'default', kind: 'finish', result: 'delivered' }]);
    expect(d.told.latency).toEqual([{ kind: 'finish', seconds: 60 }]);
    expect(d.holds).toEqual([]);
    expect(d.told.held).toEqual([]);
  });

  it('spends attempts while failures are counted, then holds without one once the breaker opens', async () => {
    const d = delivery();
    const checkoutId = await paidCheckout();
    platform().faults.add({ match: '/payment/finish-checkout', status: 503 });
    // The first failure is an attempt like any other: thrown for the job's retry schedule.
    await expect(d.deliver(checkoutId)).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    expect(d.holds).toEqual([]);
    // The second opens the breaker: the job is held until the cool-down is over.
    await expect(d.deliver(checkoutId)).rejects.toBeInstanceOf(Held);
    const openUntil = suite.world.now.getTime() + COOLDOWN_MS;
    expect(d.holds).toEqual([{ untilMs: openUntil, otherwise: expect.any(AppError) }]);
    expect(d.told.attempts).toEqual([
      { shop: 'default', kind: 'finish', result: 'transient' },
      { shop: 'default', kind: 'finish', result: 'transient' },
    ]);
    expect(d.told.held).toEqual([{ shop: 'default' }]);
    expect(d.log.entries()).toContainEqual(
      expect.objectContaining({ level: 'error', shop: 'default', probeInMs: COOLDOWN_MS }),
    );
  });

  it('holds while the breaker is open without calling the platform, then lets one probe through', async () => {
    const d = delivery();
    const checkoutId = await paidCheckout();
    platform().faults.add({ match: '/payment/finish-checkout', status: 503, times: 2 });
    await expect(d.deliver(checkoutId)).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    await expect(d.deliver(checkoutId)).rejects.toBeInstanceOf(Held);
    const openUntil = suite.world.now.getTime() + COOLDOWN_MS;

    // The platform answers again, but the breaker is open: held, no attempt, no call.
    suite.world.advance(COOLDOWN_MS - 1);
    await expect(d.deliver(checkoutId)).rejects.toBeInstanceOf(Held);
    expect(d.holds[1]).toEqual({
      untilMs: openUntil,
      otherwise: expect.objectContaining({ code: 'PLATFORM_UNAVAILABLE' }),
    });
    expect(d.told.attempts).toHaveLength(2);
    expect(finishesOf(checkoutId)).toEqual([]);

    // The cool-down over, the job goes as the probe; its answer closes the breaker.
    suite.world.advance(1);
    await expect(d.deliver(checkoutId)).resolves.toBe('delivered');
    expect(d.told.attempts.at(-1)).toEqual({
      shop: 'default',
      kind: 'finish',
      result: 'delivered',
    });
    expect(await d.breaker.isOpen('default')).toBe(false);
    expect(d.holds).toHaveLength(2);
    expect(d.told.held).toEqual([{ shop: 'default' }, { shop: 'default' }]);
  });

  it('holds a job whose probe fails for twice the cool-down, its attempt counted but not spent', async () => {
    const d = delivery();
    const checkoutId = await paidCheckout();
    platform().faults.add({ match: '/payment/finish-checkout', status: 503 });
    await expect(d.deliver(checkoutId)).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    await expect(d.deliver(checkoutId)).rejects.toBeInstanceOf(Held);
    suite.world.advance(COOLDOWN_MS);
    // The probe goes, fails, and the breaker opens again for twice as long.
    await expect(d.deliver(checkoutId)).rejects.toBeInstanceOf(Held);
    expect(d.holds.map((hold) => hold.untilMs)).toEqual([
      suite.world.now.getTime(),
      suite.world.now.getTime() + 2 * COOLDOWN_MS,
    ]);
    expect(d.holds[1]?.otherwise).toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    expect(d.told.attempts.map((attempt) => attempt.result)).toEqual([
      'transient',
      'transient',
      'transient',
    ]);
    expect(d.log.entries()).toContainEqual(
      expect.objectContaining({ level: 'warn', probes: 1, probeInMs: 2 * COOLDOWN_MS }),
    );
  });

  it('gives a refusal of the one request up as permanent: no hold, and the platform counts as answering', async () => {
    const d = delivery();
    const first = await paidCheckout();
    const second = await paidCheckout();
    platform().faults.add({ match: '/payment/finish-checkout', status: 503, times: 1 });
    await expect(d.deliver(first)).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    platform().faults.add({ match: '/payment/finish-checkout', status: 422, times: 1 });
    await expect(d.deliver(second)).rejects.toMatchObject({ retryable: false });
    expect(d.told.attempts.map((attempt) => attempt.result)).toEqual(['transient', 'permanent']);
    // The 422 closed the count: another 503 now is the first in a row again, not the second.
    platform().faults.add({ match: '/payment/finish-checkout', status: 503, times: 1 });
    await expect(d.deliver(first)).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    expect(d.holds).toEqual([]);
  });

  it('alerts when the platform refuses the connector, and still retries', async () => {
    const d = delivery();
    const checkoutId = await paidCheckout();
    platform().faults.add({ match: '/payment/finish-checkout', status: 401, times: 1 });
    await expect(d.deliver(checkoutId)).rejects.toMatchObject({ retryable: true });
    expect(d.told.attempts).toEqual([{ shop: 'default', kind: 'finish', result: 'misconfigured' }]);
    expect(d.log.entries()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: "platform refuses the connector: check the shop's platform credentials and URL",
        checkoutId,
        kind: 'finish',
      }),
    );
  });

  it('produces while the breaker is closed, and refuses at once, producing nothing, while it is open', async () => {
    const d = delivery();
    const w = suite.world;
    const paid = await paidCheckout();
    platform().faults.add({ match: '/payment/finish-checkout', status: 503, times: 2 });
    await expect(d.deliver(paid)).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    await expect(d.deliver(paid)).rejects.toBeInstanceOf(Held);

    const waiting = await suite.checkout(false);
    const work = { shop: 'default', checkoutId: waiting, jobKey: waiting };
    await expect(produceForShop(w.deps, work, d.breaker)).rejects.toMatchObject({
      code: 'PLATFORM_UNAVAILABLE',
      retryable: true,
    });
    expect((await w.deps.store.get(waiting))?.state).toBe('requested');

    w.advance(COOLDOWN_MS);
    await expect(d.deliver(paid)).resolves.toBe('delivered');
    await expect(produceForShop(w.deps, work, d.breaker)).resolves.toBeDefined();
    expect((await w.deps.store.get(waiting))?.state).toBe('url_sent');
  });
});
