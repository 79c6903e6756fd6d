import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { Notification } from '../checkout/ports';

/**
 * Delivers one finish or cancel to the platform. Every attempt carries the same
 * Idempotency-Key; failures are thrown for the queue's retry schedule.
 */
export async function deliverNotification(
  deps: Pick<CheckoutDeps, 'platform' | 'store' | 'clock' | 'log'>,
  notification: Notification,
): Promise<void> {
  const idempotencyKey = `${notification.kind}:${notification.checkoutId}`;
  if (notification.kind === 'finish') {
    await deps.platform.finishCheckout({
      serviceId: notification.serviceId,
      transactionId: notification.transactionId ?? notification.checkoutId,
      idempotencyKey,
    });
  } else {
    await deps.platform.cancelCheckout({
      serviceId: notification.serviceId,
      reason: notification.reason ?? notification.outcome,
      idempotencyKey,
    });
  }
  await deps.store.transition(notification.checkoutId, 'reported', {}, deps.clock());
  deps.log.info('platform notified', {
    checkoutId: notification.checkoutId,
    serviceId: notification.serviceId,
    kind: notification.kind,
  });
}
