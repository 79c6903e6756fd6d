import type { PaymentProvider, SingleHint, WebhookInput } from '../payments/payment-provider';
import type { CheckoutDeps } from './checkout-deps';
import type {
  CheckoutRecord,
  CheckoutState,
  IncidentKind,
  PaymentIncident,
} from './checkout-record';
import { learnFromProvider } from './settle-checkout';

export type WebhookResult =
  | { kind: 'ignored'; reason: string }
  | { kind: 'duplicate'; eventId: string }
  | { kind: 'unknown_payment'; eventId: string }
  | {
      kind: 'synced';
      /** The event handled: absent when the read of an unsigned call's payment named none. */
      eventId?: string;
      checkoutId: string;
      state: CheckoutState;
      /** An incident after the outcome that this event made known. */
      incident?: IncidentKind;
      /** The read named no event and changed nothing (a charge still unpaid). */
      unchanged?: true;
    }
  /** A call about several payments (an API Pix webhook): each one's result, in order. */
  | { kind: 'batch'; results: WebhookResult[] };

/** Where a hint's ids come from: the provider (a verified webhook, its own list), or anyone. */
export type HintSource = 'provider' | 'unsigned body';

/**
 * A provider's webhook: a hint, never the truth. Verified by the adapter; an event handled before,
 * or about a payment the connector does not know, changes nothing; otherwise the status is read
 * from the provider and recorded once. The event counts as handled only once that worked, so a
 * provider's retry after a failure is processed again.
 */
export async function handleProviderWebhook(
  deps: CheckoutDeps,
  input: WebhookInput,
): Promise<WebhookResult> {
  const hint = await deps.provider.parseWebhook(input);
  const source: HintSource = deps.provider.unsignedWebhooks ? 'unsigned body' : 'provider';
  let result: WebhookResult;
  if ('batch' in hint) {
    const results: WebhookResult[] = [];
    for (const one of hint.batch) results.push(await handleHint(deps, one, source));
    result = { kind: 'batch', results };
  } else {
    result = await handleHint(deps, hint, source);
  }
  if (answeredForNothing(deps.provider, result)) logIdleCall(deps, result);
  return result;
}

/**
 * Whether an unsigned provider's call acted on nothing (no payment of the shop's, only what was
 * known, or no webhook at all): it counts toward the webhook limit, so forging calls costs.
 */
export function answeredForNothing(
  provider: Pick<PaymentProvider, 'unsignedWebhooks'>,
  result: WebhookResult,
): boolean {
  return provider.unsignedWebhooks === true && taughtNothing(result);
}

function taughtNothing(result: WebhookResult): boolean {
  if (result.kind === 'batch') return result.results.every(taughtNothing);
  return result.kind !== 'synced' || result.unchanged === true;
}

/** One line per idle unsigned call, however many payments it named: counts, no ids. */
function logIdleCall(deps: CheckoutDeps, result: WebhookResult): void {
  const results = result.kind === 'batch' ? result.results : [result];
  const count = (kind: WebhookResult['kind']) => results.filter((r) => r.kind === kind).length;
  deps.log.info('unsigned webhook acted on nothing', {
    provider: deps.provider.name,
    payments: results.length,
    unknown: count('unknown_payment'),
    duplicate: count('duplicate'),
    unchanged: count('synced'),
    ignored: count('ignored'),
  });
}

/**
 * One hint about one payment, from a webhook or the reconciler's sweep. Its event id is kept as
 * handled only when the provider vouches for it and its reads name no events.
 */
export async function handleHint(
  deps: CheckoutDeps,
  hint: SingleHint,
  source: HintSource = 'provider',
): Promise<WebhookResult> {
  const { provider, store, webhookEvents, log } = deps;
  if ('ignore' in hint) return { kind: 'ignored', reason: hint.ignore };
  const { eventId } = hint;
  const told = source === 'provider';
  // A lookup only: an unsigned body's id can match nothing but an event the provider answered.
  if (await webhookEvents.handled(provider.name, eventId)) {
    if (told) log.info('webhook event already handled', { provider: provider.name, eventId });
    return { kind: 'duplicate', eventId };
  }
  const found =
    'checkoutId' in hint
      ? await store.get(hint.checkoutId)
      : await store.findByProviderRef(provider.name, hint.providerRef);
  const record = found?.provider === provider.name ? found : undefined;
  if (!record) {
    if (told) log.warn('webhook for an unknown payment', { provider: provider.name, eventId });
    return { kind: 'unknown_payment', eventId };
  }
  if (provider.unsignedWebhooks) return learnFromRead(deps, record, told);
  const learned = await learnFromProvider(deps, record, hint.closed);
  await webhookEvents.markHandled(provider.name, eventId);
  return syncedResult(record, learned, eventId);
}

/**
 * A payment of a provider whose webhooks prove no origin: read first, and deduplicated on the
 * event the read names (`PaymentStatus.eventId`), which alone is kept as handled. A read that
 * names none (a charge still unpaid) keeps nothing. Nothing a hint says of the checkout (that it
 * closed) is believed.
 */
async function learnFromRead(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  told: boolean,
): Promise<WebhookResult> {
  const { provider, webhookEvents, log } = deps;
  const { providerRef, checkoutId } = record;
  const status = providerRef ? await provider.getStatus({ providerRef, checkoutId }) : undefined;
  const eventId = status?.eventId;
  if (eventId !== undefined && (await webhookEvents.handled(provider.name, eventId))) {
    if (told) log.info('webhook event already handled', { provider: provider.name, eventId });
    return { kind: 'duplicate', eventId };
  }
  const learned = await learnFromProvider(deps, record, undefined, status);
  if (eventId !== undefined) await webhookEvents.markHandled(provider.name, eventId);
  return syncedResult(record, learned, eventId);
}

function syncedResult(
  before: CheckoutRecord,
  learned: { record: CheckoutRecord; incident?: PaymentIncident },
  eventId: string | undefined,
): WebhookResult {
  const { record, incident } = learned;
  const unchanged = eventId === undefined && !incident && record.state === before.state;
  return {
    kind: 'synced',
    ...(eventId !== undefined ? { eventId } : {}),
    checkoutId: record.checkoutId,
    state: record.state,
    ...(incident ? { incident: incident.kind } : {}),
    ...(unchanged ? { unchanged: true as const } : {}),
  };
}
