import type { CheckoutDeps } from '../checkout/checkout-deps';
import { acknowledgedNotification } from '../checkout/checkout-record';
import type { Notification } from '../checkout/ports';

export type DeliveryResult = 'delivered' | 'duplicate' | 'superseded';

/**
 * Delivers one finish or cancel to the platform, at most once as far as the connector can
 * tell: a notification already acknowledged (the checkout is `reported`, kept 30 days) is not
 * sent again (nor a cancel after a finish),
 * and a cancel of an old checkout is dropped, and recorded, when a newer checkout of the same
 * service was paid. Every attempt carries the same Idempotency-Key; failures are thrown.
 */
export async function deliverNotification(
  deps: Pick<CheckoutDeps, 'platform' | 'store' | 'clock' | 'log'>,
  notification: Notification,
): Promise<DeliveryResult> {
  const { checkoutId, serviceId, kind } = notification;
  const record = await deps.store.get(checkoutId);
  const delivered = record && acknowledgedNotification(record);
  if (delivered) {
    deps.log.info('notification already delivered', { checkoutId, serviceId, kind, delivered });
    return 'duplicate';
  }
  if (kind === 'cancel') {
    const latest = await deps.store.latestForService(serviceId);
    if (latest && latest.checkoutId !== checkoutId && latest.outcome === 'paid') {
      deps.log.warn('stale cancel dropped: a newer checkout of the service was paid', {
        checkoutId,
        serviceId,
        paidCheckoutId: latest.checkoutId,
      });
      await deps.store.retire(checkoutId, { field: 'cancelDropped', value: latest.checkoutId });
      return 'superseded';
    }
  }
  const idempotencyKey = `${kind}:${checkoutId}`;
  if (kind === 'finish') {
    await deps.platform.finishCheckout({
      serviceId,
      transactionId: notification.transactionId ?? checkoutId,
      idempotencyKey,
    });
  } else {
    await deps.platform.cancelCheckout({
      serviceId,
      reason: notification.reason ?? notification.outcome,
      idempotencyKey,
    });
  }
  // One write records that the platform acknowledged it, and takes the checkout out of line.
  await deps.store.transition(checkoutId, 'reported', {}, deps.clock());
  deps.log.info('platform notified', { checkoutId, serviceId, kind });
  return 'delivered';
}
