import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { Notification } from '../checkout/ports';
import { produceCheckout, type ProduceResult } from '../checkout/produce-checkout';
import { AppError } from '../errors';
import type { Log } from '../log';
import { deliverNotification, type DeliveryResult } from './deliver-notification';
import { judgeDelivery } from './delivery-policy';
import type { DeliveryMeters, JobControl } from './ports';
import { platformAnswered, platformTrouble, type ShopBreaker } from './shop-breaker';

/** One finish or cancel of a shop, as its job carries it. */
export interface ShopNotification extends Notification {
  shop: string;
}

/** The job a delivery runs in: when it was queued, and what only the job runtime can do. */
export interface DeliveryJob {
  enqueuedAtMs: number;
  control: JobControl;
}

/** What a shop's delivery works with besides the shop's own collaborators. */
export interface DeliveryCollaborators {
  /** Each shop's circuit breaker, in front of every call to the shop's platform. */
  breaker: Pick<ShopBreaker, 'admit' | 'answered' | 'failed'>;
  meters: DeliveryMeters;
  /** The workers' log: the job's log context names the job and its shop. */
  log: Log;
  /** Now, in ms since the epoch (Date.now unless said). */
  nowMs?: () => number;
}

/**
 * Produces a checkout, unless its shop's platform keeps failing (its breaker is open): then the
 * attempt fails at once (the customer is waiting; a checkout produced hours later would serve no
 * one), instead of holding a worker for the platform's timeout that other shops' checkouts need.
 * Only finish/cancel deliveries open and probe the breaker: one service the platform refuses
 * while the customer waits says nothing of the shop's account.
 */
export async function produceForShop(
  deps: CheckoutDeps,
  work: { shop: string; checkoutId: string; jobKey: string },
  breaker: Pick<ShopBreaker, 'isOpen'>,
): Promise<ProduceResult> {
  if (await breaker.isOpen(work.shop)) {
    throw new AppError(
      'PLATFORM_UNAVAILABLE',
      `The platform keeps failing for shop "${work.shop}": no checkout is produced until it answers.`,
    );
  }
  return produceCheckout(deps, work.checkoutId, work.jobKey);
}

/**
 * Delivers a finish or cancel behind its shop's breaker: while the shop's platform keeps
 * failing, the job is held (its attempt not spent) and the workers go on with other shops'
 * jobs; the failure that opens the breaker, or a failed probe, holds it too. Every answer of the
 * platform closes the breaker. Other failures are thrown as they are, for the job's retries.
 */
export async function deliverForShop(
  deps: CheckoutDeps,
  notification: ShopNotification,
  job: DeliveryJob,
  shared: DeliveryCollaborators,
): Promise<DeliveryResult> {
  const { breaker, meters } = shared;
  const { shop } = notification;
  const hold = async (untilMs: number, error: unknown): Promise<never> => {
    meters.notificationsHeld.inc({ shop });
    return job.control.holdUntil(untilMs, error);
  };
  const admission = await breaker.admit(shop);
  if (admission.kind === 'wait') {
    return hold(
      admission.until,
      new AppError('PLATFORM_UNAVAILABLE', `The platform keeps failing for shop "${shop}".`),
    );
  }
  try {
    const result = await deliverCounted(deps, notification, job.enqueuedAtMs, shared);
    // A duplicate or superseded notification made no call: it says nothing of the platform.
    if (result === 'delivered') await breaker.answered(shop);
    return result;
  } catch (error) {
    if (platformTrouble(error)) {
      const waitUntil = await breaker.failed(shop, admission.probe);
      if (waitUntil !== undefined) return hold(waitUntil, error);
    } else if (platformAnswered(error)) {
      await breaker.answered(shop);
    }
    throw error;
  }
}

/** Delivers, and counts every attempt by what came of it; errors are rethrown as they are. */
async function deliverCounted(
  deps: CheckoutDeps,
  notification: ShopNotification,
  enqueuedAtMs: number,
  shared: DeliveryCollaborators,
): Promise<DeliveryResult> {
  const { meters, log } = shared;
  const { shop, kind, checkoutId } = notification;
  try {
    const result = await deliverNotification(deps, notification);
    meters.notificationAttempts.inc({ shop, kind, result });
    if (result === 'delivered') {
      const seconds = ((shared.nowMs ?? Date.now)() - enqueuedAtMs) / 1000;
      meters.notificationLatency.observe({ kind }, seconds);
    }
    return result;
  } catch (error) {
    const verdict = judgeDelivery(error);
    const result = verdict.action === 'retry' ? verdict.answer : 'permanent';
    meters.notificationAttempts.inc({ shop, kind, result });
    if (verdict.action === 'retry' && verdict.alert) {
      log.error("platform refuses the connector: check the shop's platform credentials and URL", {
        checkoutId,
        kind,
        reason: verdict.reason,
      });
    }
    throw error;
  }
}
