import type { CheckoutDeps } from '../checkout/checkout-deps';
import {
  acknowledgedNotification,
  notificationFor,
  type CheckoutOutcome,
  type CheckoutRecord,
} from '../checkout/checkout-record';
import type { Notification } from '../checkout/ports';
import { AppError, errorMessage } from '../errors';

export type DeliveryResult = 'delivered' | 'duplicate' | 'superseded';

/**
 * The outcome the checkout's record holds, which the notification must be about. A job naming
 * no checkout, or asking for another notification than the record's outcome calls for, could
 * only have been forged or mixed up: it fails for good, with the reason, and nothing is sent.
 */
function outcomeToDeliver(
  record: CheckoutRecord | undefined,
  notification: Notification,
): { record: CheckoutRecord; outcome: CheckoutOutcome } {
  const { checkoutId, kind } = notification;
  if (!record) {
    throw new AppError('NOTIFICATION_MISMATCH', `A ${kind} for ${checkoutId}: no such checkout.`);
  }
  // The store writes `outcome` in the same step as an outcome state.
  const { outcome } = record;
  if (!outcome) {
    throw new AppError(
      'NOTIFICATION_MISMATCH',
      `A ${kind} for ${checkoutId}, which has no outcome (it is ${record.state}).`,
    );
  }
  if (notificationFor(outcome) !== kind) {
    throw new AppError(
      'NOTIFICATION_MISMATCH',
      `A ${kind} for ${checkoutId}, whose outcome is ${outcome}.`,
    );
  }
  return { record, outcome };
}

/** What delivering a notification works with: the record, its line, the platform. */
export type DeliveryDeps = Pick<
  CheckoutDeps,
  'platform' | 'store' | 'line' | 'schedule' | 'clock' | 'log' | 'paidSync'
>;

/** A cancel dropped, and recorded, when a newer checkout of the same service was paid. */
async function cancelSuperseded(deps: DeliveryDeps, record: CheckoutRecord): Promise<boolean> {
  const { checkoutId, serviceId } = record;
  const latest = await deps.store.latestForService(serviceId);
  if (!latest || latest.checkoutId === checkoutId || latest.outcome !== 'paid') return false;
  deps.log.warn('stale cancel dropped: a newer checkout of the service was paid', {
    checkoutId,
    serviceId,
    paidCheckoutId: latest.checkoutId,
  });
  await deps.line.retire(checkoutId, { field: 'cancelDropped', value: latest.checkoutId });
  return true;
}

/** Sends the finish or the cancel, with the same Idempotency-Key every attempt. */
async function notifyPlatform(
  deps: DeliveryDeps,
  { checkoutId, kind }: Notification,
  { record, outcome }: { record: CheckoutRecord; outcome: CheckoutOutcome },
): Promise<void> {
  const { serviceId } = record;
  const idempotencyKey = `${kind}:${checkoutId}`;
  if (kind === 'finish') {
    const transactionId = record.transactionId ?? checkoutId;
    await deps.platform.finishCheckout({ serviceId, transactionId, idempotencyKey });
  } else {
    await deps.platform.cancelCheckout({
      serviceId,
      reason: record.reason ?? outcome,
      idempotencyKey,
    });
  }
}

/**
 * The ERP learns of the payment now, not at the next sync pass. The finish is delivered
 * whatever happens here: a failure only leaves it to the next pass.
 */
async function handPaidToSync(deps: DeliveryDeps, { checkoutId, serviceId }: CheckoutRecord) {
  await deps.paidSync?.servicePaid(serviceId, checkoutId).catch((error: unknown) =>
    deps.log.warn('paid service not handed to the ERP sync; the next pass will', {
      checkoutId,
      serviceId,
      reason: errorMessage(error),
    }),
  );
}

/**
 * Delivers one finish or cancel to the platform, saying only what the checkout's record holds,
 * at most once as far as the connector can tell: a notification already acknowledged (the
 * checkout is `reported`, kept 30 days) is not sent again (nor a cancel after a finish), and a
 * cancel of an old checkout is dropped, and recorded, when a newer checkout of the same service
 * was paid. Every attempt carries the same Idempotency-Key; failures are thrown.
 */
export async function deliverNotification(
  deps: DeliveryDeps,
  notification: Notification,
): Promise<DeliveryResult> {
  const { checkoutId, kind } = notification;
  const stored = await deps.store.get(checkoutId);
  const delivered = stored && acknowledgedNotification(stored);
  if (stored && delivered) {
    const serviceId = stored.serviceId;
    deps.log.info('notification already delivered', { checkoutId, serviceId, kind, delivered });
    return 'duplicate';
  }
  const toDeliver = outcomeToDeliver(stored, notification);
  if (kind === 'cancel' && (await cancelSuperseded(deps, toDeliver.record))) return 'superseded';
  await notifyPlatform(deps, notification, toDeliver);
  // One write records that the platform acknowledged it, and takes the checkout out of line.
  const now = deps.clock();
  await deps.store.transition(checkoutId, 'reported', {}, now, deps.schedule.firstLookAt(now));
  deps.log.info('platform notified', { checkoutId, serviceId: toDeliver.record.serviceId, kind });
  if (kind === 'finish') await handPaidToSync(deps, toDeliver.record);
  return 'delivered';
}
