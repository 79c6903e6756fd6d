import type { CheckoutDeps } from '../../src/checkout/checkout-deps';
import { newCheckoutId } from '../../src/checkout/checkout-record';

/** What opening checkouts by hand needs of a running connector. */
export interface OpenedBy {
  deps: CheckoutDeps;
  /** The connector's base URL, for the provider's return links. */
  url: string;
}

/**
 * A checkout with its URL sent, as produceCheckout leaves it, written straight to the store and
 * the provider (no platform call, no job): for a line of thousands of open checkouts.
 */
export async function openSentCheckout(connector: OpenedBy, serviceId: number): Promise<string> {
  const { deps } = connector;
  const now = new Date();
  const { record } = await deps.store.openForService({
    checkoutId: newCheckoutId(),
    serviceId,
    provider: deps.provider.name,
    now,
    expiresAt: new Date(now.getTime() + 3_600_000),
    lookAt: deps.schedule.firstLookAt(now),
  });
  const amount = { amountMinor: 1000, currency: 'BRL' };
  const lines = [{ label: 'Corte', amountMinor: 1000 }];
  const created = await deps.provider.createCheckout({
    checkoutId: record.checkoutId,
    serviceId,
    amount,
    lines,
    description: `Pedido ${serviceId}`,
    returnUrl: `${connector.url}/return/sandbox`,
    cancelUrl: `${connector.url}/return/sandbox`,
    createdAt: new Date(record.createdAt),
    expiresAt: new Date(record.expiresAt),
  });
  await deps.store.attachProviderCheckout(
    record.checkoutId,
    { provider: record.provider, ...created, amount, lines },
    now,
    deps.schedule.firstLookAt(now),
  );
  await deps.store.transition(
    record.checkoutId,
    'url_sent',
    {},
    now,
    deps.schedule.firstLookAt(now),
  );
  return record.checkoutId;
}

/** `count` such checkouts for services `first`, `first + 1`..., 250 at a time. */
export async function openSentCheckouts(
  connector: OpenedBy,
  count: number,
  first: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 250) {
    const batch = Array.from({ length: Math.min(250, count - start) }, (_, i) =>
      openSentCheckout(connector, first + start + i),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}
