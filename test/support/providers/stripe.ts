import { PAYMENT_METHODS, type PaymentMethod } from '../../../src/payments/payment-offer';
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

/**
 * What a session offers, in our words: its `allowed_payment_method_types` (Stripe names card, pix
 * and boleto as we do; other types are none of ours), or, a session that names none, whatever
 * Checkout finds eligible: at the fake, any.
 */
function offeredBy(session: FakeSession): PaymentMethod[] {
  const allowed = session.allowed_payment_method_types;
  return PAYMENT_METHODS.filter((method) => allowed === null || allowed.includes(method));
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
      refundsMade: async (_id, ref) => fake.refundsOf(fake.chargeOf(ref).id).length,
      methodsOffered: async (_id, ref) => offeredBy(fake.session(ref)),
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
  record: {
    what: 'a debit card',
    pay: async (fake, connectorUrl, checkoutId) => {
      const session = fake.pay(sessionOf(fake, checkoutId).id, 'card', {
        card: { brand: 'mastercard', last4: '5556', funding: 'debit', authorizationCode: 'A1B2C3' },
        payer: { name: 'João da Silva' },
      });
      await fake.deliver(
        `${connectorUrl}/webhooks/stripe`,
        fake.event('checkout.session.completed', session),
      );
      return session;
    },
    says: (fake, session, order) => {
      const charge = fake.chargeOf(session.id);
      const transaction = fake.balanceTransactions.get(charge.balance_transaction ?? '');
      if (!transaction) throw new Error(`no balance transaction of ${charge.id}`);
      return {
        transactionId: String(session.payment_intent),
        method: 'card',
        // A card with no installment plan: Stripe does not say it is one payment.
        installments: null,
        amounts: {
          order,
          interest: 0,
          paid: order,
          provider_fee: transaction.fee,
          vendor_fee: 0,
          net: transaction.net,
        },
        release_date: new Date(transaction.available_on * 1000).toISOString().slice(0, 10),
        provider_ids: { payment: String(session.payment_intent), pix_e2e: null, pix_txid: null },
        paid_at: new Date(transaction.created * 1000).toISOString(),
        // Checkout asked no tax id (no tax_id_collection): the name only.
        payer: { name: 'João da Silva', document: null },
        card: { brand: 'mastercard', last4: '5556', authorization_code: 'A1B2C3' },
        // A debit Mastercard (04, 02) taken by Stripe Brasil.
        nfe: { tPag: '04', tBand: '02', cAut: 'A1B2C3', CNPJ: '22121209000146' },
      };
    },
    fee: (order) => Math.round((order * 3.99) / 100) + 39,
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
