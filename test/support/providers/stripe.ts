import { vendorEnv } from '../connect-shops';
import { FakeStripe, type FakeSession } from '../fake-stripe';
import { stripeConnectEvent } from '../provider-endpoint-bodies';
import { testProvider } from './test-provider';

/** The Checkout Session the connector created for `checkoutId`. */
function sessionOf(fake: FakeStripe, checkoutId: string): FakeSession {
  const found = [...fake.sessions.values()].find((s) => s.client_reference_id === checkoutId);
  if (!found) throw new Error(`no Stripe session for ${checkoutId}`);
  return found;
}

/** Stripe Checkout, at its loopback fake: a session per checkout, signed events. */
export const stripeRow = testProvider({
  name: 'stripe',
  title: 'Stripe Checkout',
  fake: () => new FakeStripe(),
  env: (fake) => fake.env(),
  vendorEnv: (fake) => vendorEnv({ stripe: fake }),
  contract: {
    offers: { card: true, boleto: true, pixUnderWay: true },
    forgeries: ['tampered', 'wrong secret', 'stale', 'missing'],
    driver: (fake) => ({
      pay: async (_id, ref) => void fake.pay(ref, 'card'),
      startPix: async (_id, ref) => void fake.pay(ref, 'pix'),
      confirmPix: async (_id, ref) => void fake.settle(ref, true),
      issueBoleto: async (_id, ref) => void fake.pay(ref, 'boleto'),
      refund: async (_id, ref) => void fake.refund(ref),
      webhook: async (_id, ref, forgery) => {
        const event = fake.event('checkout.session.completed', fake.session(ref));
        const signed = fake.signature(event.body, {
          secret: forgery === 'wrong secret' ? 'whsec_wrong' : undefined,
          timestamp: forgery === 'stale' ? Math.floor(Date.now() / 1000) - 3600 : undefined,
        });
        const body = forgery === 'tampered' ? event.body.replace(ref, `${ref}x`) : event.body;
        const headers = forgery === 'missing' ? {} : { 'stripe-signature': signed };
        return { headers, query: {}, rawBody: Buffer.from(body) };
      },
    }),
  },
  flow: (fake, connectorUrl) => ({
    method: 'card',
    urlOf: (checkoutId) => sessionOf(fake, checkoutId).url ?? undefined,
    pay: (checkoutId) => fake.pay(sessionOf(fake, checkoutId).id, 'card'),
    payWrongAmount: (checkoutId) => {
      const paid = fake.pay(sessionOf(fake, checkoutId).id, 'card');
      paid.amount_total += 100;
      return paid;
    },
    transactionIdOf: (paid) => String(paid.payment_intent),
    notify: (paid) =>
      fake.deliver(
        `${connectorUrl}/webhooks/stripe`,
        fake.event('checkout.session.completed', paid),
      ),
  }),
  // Its charge events, whichever object they carry: the adapter reads the PaymentIntent.
  incidents: {
    notes: { refund: 'refunded at Stripe', chargeback: 'disputed at Stripe' },
    refund: (fake, connectorUrl, paid) => {
      const refunded = fake.refund(paid.id);
      return () =>
        fake.deliver(`${connectorUrl}/webhooks/stripe`, fake.event('charge.refunded', refunded));
    },
    chargeBack: (fake, connectorUrl, paid) => {
      const dispute = fake.dispute(paid.id);
      return () =>
        fake.deliver(
          `${connectorUrl}/webhooks/stripe`,
          fake.event('charge.dispute.created', dispute),
        );
    },
  },
  // The session's success_url and cancel_url.
  returns: {
    paid: (fake, checkoutId) => fake.pay(sessionOf(fake, checkoutId).id, 'card').success_url,
    failed: (fake, checkoutId) => {
      const session = sessionOf(fake, checkoutId);
      fake.pay(session.id, 'pix');
      return fake.settle(session.id, false).success_url;
    },
    left: (fake, checkoutId) => sessionOf(fake, checkoutId).cancel_url ?? '',
  },
  inbound: {
    forgedAuth: [{ 'stripe-signature': 't=1,v1=deadbeef' }],
    connectEvent: stripeConnectEvent,
  },
});
