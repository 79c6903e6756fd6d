import { randomBytes } from 'node:crypto';
import { signNotification } from '../../../src/payments/mercadopago/mercadopago-signature';
import { minorOf } from '../../../src/payments/money';
import { PAYMENT_METHODS, type PaymentMethod } from '../../../src/payments/payment-offer';
import { vendorEnv } from '../connect-shops';
import type { WebhookInput } from '../../../src/payments/payment-provider';
import { FakeMercadoPago, type FakePayment, type FakePreference } from '../fake-mercadopago';
import { testProvider, type Forgery } from './test-provider';

/** A payment notification as the adapter receives it, signed as Mercado Pago signs, or forged. */
function notification(
  fake: FakeMercadoPago,
  payment: FakePayment,
  forgery: Forgery | undefined,
): WebhookInput {
  const requestId = randomBytes(8).toString('hex');
  const ts = String(forgery === 'stale' ? Date.now() - 3_600_000 : Date.now());
  const signature = signNotification(
    forgery === 'wrong secret' ? 'another-secret-0123456789' : fake.webhookSecret,
    { dataId: String(payment.id), requestId, ts },
  );
  const dataId = forgery === 'tampered' ? String(payment.id + 1) : String(payment.id);
  return {
    headers: {
      ...(forgery === 'missing' ? {} : { 'x-signature': signature }),
      'x-request-id': requestId,
    },
    query: { 'data.id': dataId, type: 'payment' },
    rawBody: Buffer.from(JSON.stringify({ id: 1, type: 'payment', data: { id: dataId } })),
  };
}

/** The preference the connector created for `checkoutId`. */
function preferenceOf(fake: FakeMercadoPago, checkoutId: string): FakePreference {
  const found = fake.preferenceFor(checkoutId);
  if (!found) throw new Error(`no preference for ${checkoutId}`);
  return found;
}

/**
 * Mercado Pago's payment types (a payment's `payment_type_id`) of each of our methods: Pix is a
 * `bank_transfer`; a card a credit, debit or prepaid one; a boleto a `ticket` (and cash at an
 * `atm`, the other offline type).
 */
const PAYMENT_TYPES_OF: Record<PaymentMethod, readonly string[]> = {
  pix: ['bank_transfer'],
  card: ['credit_card', 'debit_card', 'prepaid_card'],
  boleto: ['ticket', 'atm'],
};

/**
 * What a preference offers, in our words: Checkout Pro offers every payment type but those in
 * its `payment_methods.excluded_payment_types`, so a method is offered while any of its types is
 * (Mercado Pago's balance, `account_money`, is none of ours and cannot be excluded).
 */
function offeredBy(preference: FakePreference): PaymentMethod[] {
  const excluded = new Set(
    (preference.payment_methods?.excluded_payment_types ?? []).map((type) => type.id),
  );
  return PAYMENT_METHODS.filter((method) =>
    PAYMENT_TYPES_OF[method].some((type) => !excluded.has(type)),
  );
}

/** A card's rate for the payment record: 3.98%, the money 30 days after approval. */
const CARD_FEE = { percentHundredths: 398, fixedMinor: 0, releaseDays: 30 };

/** Mercado Pago's Checkout Pro, at its loopback fake: a preference per checkout, signed notices. */
export const mercadoPagoRow = testProvider({
  name: 'mercadopago',
  title: 'Mercado Pago Checkout Pro',
  fake: () => new FakeMercadoPago(),
  env: (fake) => fake.env(),
  vendorEnv: (fake) => vendorEnv({ mp: fake }),
  contract: {
    offers: { card: true, boleto: true, pixUnderWay: true },
    forgeries: ['tampered', 'wrong secret', 'stale', 'missing'],
    driver: (fake) => {
      const preference = (checkoutId: string) => preferenceOf(fake, checkoutId);
      const paymentsOf = (checkoutId: string) =>
        [...fake.payments.values()].filter((p) => p.external_reference === checkoutId);
      return {
        pay: async (id) => void fake.pay(preference(id), 'approved'),
        startPix: async (id) =>
          void fake.pay(preference(id), 'pending', undefined, { paymentType: 'bank_transfer' }),
        confirmPix: async (id) => {
          const pending = paymentsOf(id).find((p) => p.status === 'pending');
          if (pending) fake.update(pending, 'approved');
        },
        issueBoleto: async (id) =>
          void fake.pay(preference(id), 'pending', undefined, { paymentType: 'ticket' }),
        refundsMade: async (id) =>
          paymentsOf(id).reduce((sum, p) => sum + (p.refunds?.length ?? 0), 0),
        methodsOffered: async (_id, ref) => {
          const found = fake.preferences.get(ref);
          if (!found) throw new Error(`no preference ${ref}`);
          return offeredBy(found);
        },
        refund: async (id) => {
          for (const payment of paymentsOf(id))
            if (payment.status === 'approved') fake.update(payment, 'refunded');
        },
        webhook: async (id, _ref, forgery) =>
          notification(fake, paymentsOf(id)[0] ?? fake.pay(preference(id), 'approved'), forgery),
      };
    },
  },
  flow: (fake, connectorUrl) => ({
    method: 'card',
    urlOf: (checkoutId) => fake.preferenceFor(checkoutId)?.init_point,
    pay: (checkoutId) => fake.pay(preferenceOf(fake, checkoutId), 'approved'),
    payWrongAmount: (checkoutId) => fake.pay(preferenceOf(fake, checkoutId), 'approved', 0.01),
    transactionIdOf: (payment) => String(payment.id),
    notify: (payment) => fake.notify(`${connectorUrl}/webhooks/mercadopago`, payment),
  }),
  // The payment's new status, then its notification.
  incidents: {
    notes: {
      refund: 'payment refunded at Mercado Pago',
      chargeback: 'payment charged_back at Mercado Pago',
    },
    refund: (fake, connectorUrl, payment) => {
      fake.update(payment, 'refunded');
      return () => fake.notify(`${connectorUrl}/webhooks/mercadopago`, payment);
    },
    chargeBack: (fake, connectorUrl, payment) => {
      fake.update(payment, 'charged_back');
      return () => fake.notify(`${connectorUrl}/webhooks/mercadopago`, payment);
    },
  },
  record: {
    what: 'a card in 6 installments with interest',
    env: { CARD_MAX_INSTALLMENTS: '12' },
    pay: async (fake, connectorUrl, checkoutId) => {
      fake.fees.credit_card = CARD_FEE;
      const payment = fake.pay(preferenceOf(fake, checkoutId), 'approved', undefined, {
        installments: 6,
        interest: 72,
      });
      await fake.notify(`${connectorUrl}/webhooks/mercadopago`, payment);
      return payment;
    },
    says: (_fake, payment, order) => {
      const fee = payment.fee_details.find((f) => f.type === 'mercadopago_fee');
      if (!fee) throw new Error('Mercado Pago charged no fee');
      const { card } = payment;
      if (!('last_four_digits' in card)) throw new Error('Mercado Pago told no card');
      if (payment.payment_method_id !== 'master') throw new Error('not the Mastercard paid with');
      return {
        transactionId: String(payment.id),
        method: 'card',
        installments: 6,
        amounts: {
          order,
          interest: 7_200,
          paid: order + 7_200,
          provider_fee: minorOf(fee.amount),
          vendor_fee: 0,
          net: minorOf(payment.transaction_details.net_received_amount),
        },
        release_date: payment.money_release_date?.slice(0, 10),
        provider_ids: { payment: String(payment.id), pix_e2e: null, pix_txid: null },
        paid_at: new Date(payment.date_approved ?? NaN).toISOString(),
        payer: {
          name: `${payment.payer.first_name} ${payment.payer.last_name}`,
          document: payment.payer.identification.number,
        },
        // A credit card of Mercado Pago's `master`: the NF-e's 03 (credit) and 02 (Mastercard).
        card: {
          brand: 'mastercard',
          last4: card.last_four_digits,
          authorization_code: payment.authorization_code,
        },
        nfe: {
          tPag: '03',
          tBand: '02',
          cAut: payment.authorization_code,
          CNPJ: '10573521000191',
        },
      };
    },
    // Mercado Pago's rate on the order; the buyer's interest is not the seller's.
    fee: (order) => Math.round((order * CARD_FEE.percentHundredths) / 10_000),
  },
  // The preference's back_urls.
  returns: {
    paid: (fake, checkoutId) => {
      const preference = preferenceOf(fake, checkoutId);
      fake.pay(preference, 'approved');
      return preference.back_urls.success;
    },
    failed: (fake, checkoutId) => {
      const preference = preferenceOf(fake, checkoutId);
      fake.pay(preference, 'rejected');
      return preference.back_urls.failure;
    },
    pixPending: (fake, checkoutId) => {
      const preference = preferenceOf(fake, checkoutId);
      fake.pay(preference, 'pending', undefined, { paymentType: 'bank_transfer' });
      return preference.back_urls.pending;
    },
  },
  inbound: { forgedAuth: [{ 'x-signature': 'ts=1,v1=deadbeef', 'x-request-id': 'abc' }] },
});
