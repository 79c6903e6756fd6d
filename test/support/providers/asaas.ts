import { minorOf } from '../../../src/payments/money';
import type { PaymentMethod } from '../../../src/payments/payment-offer';
import { vendorEnv } from '../connect-shops';
import { FakeAsaas, type FakeCheckout } from '../fake-asaas';
import { asaasForm } from '../provider-endpoint-bodies';
import { testProvider } from './test-provider';

/** The Asaas checkout the connector created for `checkoutId`. */
function checkoutOf(fake: FakeAsaas, checkoutId: string): FakeCheckout {
  const found = fake.checkoutFor(checkoutId);
  if (!found) throw new Error(`no Asaas checkout for ${checkoutId}`);
  return found;
}

/** Our word for each of a checkout's `billingTypes` (Asaas Checkout takes PIX and CREDIT_CARD). */
const METHOD_OF_BILLING_TYPE: Readonly<Record<string, PaymentMethod>> = {
  PIX: 'pix',
  CREDIT_CARD: 'card',
};

/** What an Asaas checkout offers, in our words: its `billingTypes`. */
function offeredBy(checkout: FakeCheckout): PaymentMethod[] {
  return checkout.billingTypes.map((type) => {
    const method = METHOD_OF_BILLING_TYPE[type];
    if (!method) throw new Error(`Asaas billingType ${type} is none of ours`);
    return method;
  });
}

/** Asaas's fee on a Pix for the payment record, in centavos: its public one. */
const PIX_FEE_MINOR = 199;

/**
 * Asaas Checkout, at its loopback fake: a checkout per checkout, events with a static token (it
 * signs nothing, so only the token's forgeries apply; a replayed event is the core's to dedupe).
 * Its checkout offers no boleto.
 */
export const asaasRow = testProvider({
  name: 'asaas',
  title: 'Asaas Checkout',
  fake: () => new FakeAsaas(),
  env: (fake) => fake.env(),
  vendorEnv: (fake) => vendorEnv({ asaas: fake }),
  contract: {
    offers: { card: true, boleto: false, pixUnderWay: true },
    forgeries: ['wrong secret', 'missing'],
    driver: (fake) => {
      const checkout = (ref: string): FakeCheckout => {
        const found = fake.checkouts.get(ref);
        if (!found) throw new Error(`no checkout ${ref}`);
        return found;
      };
      return {
        pay: async (_id, ref) => void fake.pay(checkout(ref), { billingType: 'CREDIT_CARD' }),
        startPix: async (_id, ref) => void fake.pay(checkout(ref), { billingType: 'PIX' }),
        confirmPix: async (_id, ref) =>
          void fake.update(fake.paymentsOf(checkout(ref)), 'RECEIVED'),
        refund: async (_id, ref) => void fake.update(fake.paymentsOf(checkout(ref)), 'REFUNDED'),
        refundsMade: async (_id, ref) =>
          fake.paymentsOf(checkout(ref)).reduce((sum, p) => sum + (p.refunds?.length ?? 0), 0),
        methodsOffered: async (_id, ref) => offeredBy(checkout(ref)),
        webhook: async (_id, ref, forgery) => {
          const [payment] = fake.paymentsOf(checkout(ref));
          const event = payment
            ? fake.event('PAYMENT_CONFIRMED', { payment })
            : fake.event('CHECKOUT_PAID', { checkout: checkout(ref) });
          const token = forgery === 'wrong secret' ? `${fake.webhookToken}x` : fake.webhookToken;
          return {
            headers: forgery === 'missing' ? {} : { 'asaas-access-token': token },
            query: {},
            rawBody: Buffer.from(JSON.stringify(event)),
          };
        },
      };
    },
  },
  flow: (fake, connectorUrl) => {
    const first = <T>(payments: T[]): T => {
      const [payment] = payments;
      if (!payment) throw new Error('Asaas made no payment');
      return payment;
    };
    return {
      method: 'card',
      urlOf: (checkoutId) => fake.checkoutFor(checkoutId)?.link,
      pay: (checkoutId) =>
        first(fake.pay(checkoutOf(fake, checkoutId), { billingType: 'CREDIT_CARD' })),
      payWrongAmount: (checkoutId) =>
        first(
          fake.pay(checkoutOf(fake, checkoutId), { billingType: 'CREDIT_CARD', valueMinor: 1 }),
        ),
      transactionIdOf: (payment) => payment.id,
      notify: (payment) =>
        fake.notify(`${connectorUrl}/webhooks/asaas`, fake.event('PAYMENT_CONFIRMED', { payment })),
    };
  },
  // The payment's new status, then its event.
  incidents: {
    notes: {
      refund: 'payment REFUNDED at Asaas',
      chargeback: 'payment CHARGEBACK_REQUESTED at Asaas',
    },
    refund: (fake, connectorUrl, payment) => {
      fake.update([payment], 'REFUNDED');
      return () =>
        fake.notify(`${connectorUrl}/webhooks/asaas`, fake.event('PAYMENT_REFUNDED', { payment }));
    },
    chargeBack: (fake, connectorUrl, payment) => {
      fake.update([payment], 'CHARGEBACK_REQUESTED');
      return () =>
        fake.notify(
          `${connectorUrl}/webhooks/asaas`,
          fake.event('PAYMENT_CHARGEBACK_REQUESTED', { payment }),
        );
    },
  },
  record: {
    what: 'a Pix',
    pay: async (fake, connectorUrl, checkoutId) => {
      fake.fees = { ...fake.fees, pixMinor: PIX_FEE_MINOR };
      const [payment] = fake.pay(checkoutOf(fake, checkoutId), {
        billingType: 'PIX',
        status: 'RECEIVED',
      });
      if (!payment) throw new Error('Asaas made no payment');
      await fake.notify(
        `${connectorUrl}/webhooks/asaas`,
        fake.event('PAYMENT_RECEIVED', { payment }),
      );
      return payment;
    },
    says: (fake, payment, order) => {
      const net = minorOf(payment.netValue);
      const transaction = fake.pixTransactions.get(payment.pixTransaction ?? '');
      if (!transaction) throw new Error(`no Pix transaction of ${payment.id}`);
      const customer = fake.customers.get(payment.customer);
      if (!customer) throw new Error(`no customer of ${payment.id}`);
      return {
        transactionId: payment.id,
        method: 'pix',
        installments: 1,
        amounts: { order, interest: 0, paid: order, provider_fee: order - net, vendor_fee: 0, net },
        release_date: payment.creditDate,
        provider_ids: {
          payment: payment.id,
          pix_e2e: transaction.endToEndIdentifier,
          pix_txid: null,
        },
        // Asaas tells the day only.
        paid_at: payment.clientPaymentDate,
        payer: { name: customer.name, document: customer.cpfCnpj },
        card: null,
        nfe: { tPag: '17', tBand: null, cAut: null, CNPJ: '19540550000121' },
      };
    },
    fee: (order) => Math.min(order, PIX_FEE_MINOR),
  },
  inbound: {
    forgedAuth: [{ 'asaas-access-token': 'not-the-webhook-token-0123456789abcdef' }],
    linkForm: asaasForm,
  },
});
