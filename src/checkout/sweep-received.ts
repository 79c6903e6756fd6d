import { errorMessage } from '../errors';
import type { CheckoutDeps } from './checkout-deps';
import { handleHint } from './handle-provider-webhook';

/**
 * The reconciler's sweep of what a provider received (the API Pix's `GET /pix`), for a provider
 * that can list it: each payment is handled as its webhook would have been, so one whose webhook
 * was lost is recorded (an open checkout paid, a late payment after the outcome). An event
 * handled before changes nothing. The window counts as handled only up to the first payment
 * whose handling failed, so the next sweep lists that one again. Returns how many payments it
 * learned of; a provider that cannot be reached is tried again at a later pass.
 */
export async function sweepReceived(deps: CheckoutDeps): Promise<number> {
  const { provider } = deps;
  if (!provider.receivedPayments) return 0;
  let sweep;
  try {
    sweep = await provider.receivedPayments();
  } catch (error) {
    deps.log.warn('could not list the payments received; the next pass tries again', {
      provider: provider.name,
      errMessage: errorMessage(error),
    });
    return 0;
  }
  if (!sweep) return 0;
  let learned = 0;
  let through = sweep.until.getTime();
  for (const hint of sweep.payments) {
    try {
      const result = await handleHint(deps, hint);
      if (result.kind === 'synced') learned += 1;
    } catch (error) {
      const at = Date.parse(hint.receivedAt ?? '');
      // Without its time, the window is not counted as handled at all.
      through = Math.min(through, Number.isFinite(at) ? at - 1 : 0);
      deps.log.warn('could not look at a payment received; the next sweep tries again', {
        provider: provider.name,
        eventId: hint.eventId,
        errMessage: errorMessage(error),
      });
    }
  }
  if (through > 0) await sweep.done(new Date(through));
  if (learned > 0)
    deps.log.info('payments found by the sweep', { provider: provider.name, learned });
  return learned;
}
