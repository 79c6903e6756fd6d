import { z } from 'zod';
import type { CheckoutClosed, WebhookHint } from '../payment-provider';

/*
 * Asaas's webhook events (checkout and payment events), read as hints of which checkout to read
 * again. Authenticating them (the webhook's token) is AsaasProvider's.
 */

export function hintOfEvent(rawBody: Buffer): WebhookHint {
  const event = parseEvent(rawBody);
  if (!event) return { ignore: 'the body is not an Asaas event' };
  const name = event.event ?? '(none)';
  if (name.startsWith('CHECKOUT_') && event.checkout?.id) {
    const closed = CLOSING_EVENTS.get(name);
    return {
      providerRef: event.checkout.id,
      eventId: event.id ?? `${name}:${event.checkout.id}`,
      ...(closed ? { closed } : {}),
    };
  }
  if (name.startsWith('PAYMENT_') && event.payment) {
    const eventId = event.id ?? `${name}:${event.payment.id ?? ''}`;
    if (event.payment.checkoutSession) {
      return { providerRef: event.payment.checkoutSession, eventId };
    }
    // The connector's checkout id, when Asaas carries the checkout's externalReference over.
    if (event.payment.externalReference) {
      return { checkoutId: event.payment.externalReference, eventId };
    }
    return { ignore: 'a payment of no checkout of the connector' };
  }
  return { ignore: `event ${name} is not used` };
}

/**
 * The checkout events that say Asaas closed the checkout itself. Asaas has no read of a checkout
 * (the API lists its payments, not its status), so the authenticated event is the truth about
 * the checkout; its payments still decide "paid" (`withCheckoutClosed`). Names from
 * docs.asaas.com, "Eventos para Checkout" (CHECKOUT_CREATED, CHECKOUT_CANCELED, CHECKOUT_EXPIRED,
 * CHECKOUT_PAID) and the Checkout FAQ's statuses (ACTIVE, PAID, CANCELED, EXPIRED). Assumed, as
 * the docs do not say: the event carries the checkout as `checkout.id` (the docs' example shows
 * `id`, `event`, `dateCreated` and `account` before it), and a payment created before the
 * checkout closed (a Pix code shown) may still be paid, so it keeps the checkout open.
 */
const CLOSING_EVENTS = new Map<string, CheckoutClosed>([
  ['CHECKOUT_EXPIRED', { state: 'expired', reason: 'checkout EXPIRED at Asaas' }],
  ['CHECKOUT_CANCELED', { state: 'canceled', reason: 'checkout CANCELED at Asaas' }],
]);

const eventSchema = z.looseObject({
  id: z.string().optional(),
  event: z.string().optional(),
  checkout: z.looseObject({ id: z.string().optional() }).nullish(),
  payment: z
    .looseObject({
      id: z.string().optional(),
      checkoutSession: z.string().nullish(),
      externalReference: z.string().nullish(),
    })
    .nullish(),
});

function parseEvent(raw: Buffer): z.output<typeof eventSchema> | undefined {
  try {
    const parsed = eventSchema.safeParse(JSON.parse(raw.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
