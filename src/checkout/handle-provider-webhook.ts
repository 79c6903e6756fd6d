import type { SingleHint, WebhookInput } from '../payments/payment-provider';
import type { CheckoutDeps } from './checkout-deps';
import type { CheckoutState, IncidentKind } from './checkout-record';
import { learnFromProvider } from './settle-checkout';

export type WebhookResult =
  | { kind: 'ignored'; reason: string }
  | { kind: 'duplicate'; eventId: string }
  | { kind: 'unknown_payment'; eventId: string }
  | {
      kind: 'synced';
      eventId: string;
      checkoutId: string;
      state: CheckoutState;
      /** An incident after the outcome that this event made known. */
      incident?: IncidentKind;
    }
  /** A call about several payments (an API Pix webhook): each one's result, in order. */
  | { kind: 'batch'; results: WebhookResult[] };

/**
 * A provider's webhook: a hint, never the truth. The provider's adapter verifies it (a bad
 * signature throws, and nothing changes); an event handled before changes nothing; an event about
 * a payment the connector does not know is logged and acknowledged; otherwise the payment's status
 * is read from the provider and recorded, once, whatever else (the redirect, another event) races
 * it. An event that says the provider's checkout itself closed (where no read of it exists) ends
 * a checkout whose payments leave it pending. The event counts as handled only once that worked,
 * so a provider retry after a failure is processed again.
 */
export async function handleProviderWebhook(
  deps: CheckoutDeps,
  input: WebhookInput,
): Promise<WebhookResult> {
  const hint = await deps.provider.parseWebhook(input);
  if (!('batch' in hint)) return handleHint(deps, hint);
  // One call about several payments: each handled as if it came alone, in order.
  const results: WebhookResult[] = [];
  for (const one of hint.batch) results.push(await handleHint(deps, one));
  return { kind: 'batch', results };
}

/**
 * One hint about one payment, from a webhook or from a sweep of the payments a provider received
 * (the reconciler's: src/checkout/sweep-received.ts), handled the same way.
 */
export async function handleHint(deps: CheckoutDeps, hint: SingleHint): Promise<WebhookResult> {
  const { provider, store, webhookEvents, log } = deps;
  if ('ignore' in hint) return { kind: 'ignored', reason: hint.ignore };
  const { eventId } = hint;
  if (await webhookEvents.handled(provider.name, eventId)) {
    log.info('webhook event already handled', { provider: provider.name, eventId });
    return { kind: 'duplicate', eventId };
  }
  const found =
    'checkoutId' in hint
      ? await store.get(hint.checkoutId)
      : await store.findByProviderRef(provider.name, hint.providerRef);
  const record = found?.provider === provider.name ? found : undefined;
  if (!record) {
    log.warn('webhook for an unknown payment', { provider: provider.name, eventId });
    await webhookEvents.markHandled(provider.name, eventId);
    return { kind: 'unknown_payment', eventId };
  }
  const learned = await learnFromProvider(deps, record, hint.closed);
  await webhookEvents.markHandled(provider.name, eventId);
  return {
    kind: 'synced',
    eventId,
    checkoutId: learned.record.checkoutId,
    state: learned.record.state,
    ...(learned.incident ? { incident: learned.incident.kind } : {}),
  };
}
