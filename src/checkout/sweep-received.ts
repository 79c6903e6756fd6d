import { errorMessage } from '../errors';
import type { CheckoutDeps } from './checkout-deps';
import { handleHint } from './handle-provider-webhook';

/**
 * The reconciler's sweep of what a provider received (the API Pix's `GET /pix`), for a provider
 * that can list it: each payment is handled as its webhook would have been, so one whose webhook
 * was lost is recorded (an open checkout paid, a late payment after the outcome). An event
 * handled before changes nothing. Returns how many payments it learned of; a provider that
 * cannot be reached is tried again at a later pass.
 */
export async function sweepReceived(deps: CheckoutDeps): Promise<number> {
  const { provider } = deps;
  if (!provider.receivedPayments) return 0;
  let received;
  try {
    received = await provider.receivedPayments();
  } catch (error) {
    deps.log.warn('could not list the payments received; the next pass tries again', {
      provider: provider.name,
      errMessage: errorMessage(error),
    });
    return 0;
  }
  let learned = 0;
  for (const hint of received) {
    const result = await handleHint(deps, hint).catch((error: unknown) => {
      deps.log.warn('could not look at a payment received', {
        provider: provider.name,
        eventId: hint.eventId,
        errMessage: errorMessage(error),
      });
      return undefined;
    });
    if (result?.kind === 'synced') learned += 1;
  }
  if (learned > 0)
    deps.log.info('payments found by the sweep', { provider: provider.name, learned });
  return learned;
}
