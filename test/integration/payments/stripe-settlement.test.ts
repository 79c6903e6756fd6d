import Stripe from 'stripe';
import { newCheckoutId } from '../../../src/checkout/checkout-record';
import type { Money } from '../../../src/payments/money';
import type { CheckoutRequest, PaymentProvider } from '../../../src/payments/payment-provider';
import {
  hostOptions,
  sessionStatus,
  StripeProvider,
} from '../../../src/payments/stripe/stripe-provider';
import { FakeStripe } from '../../support/fake-stripe';

/**
 * What the Stripe adapter reports of a payment's money (`settlement`), read with the session from
 * the charge's balance transaction and payment method details, against a loopback Stripe: a card
 * in installments on a connected account with the vendor's fee, a Pix, a refund, a conversion.
 */
describe("Stripe's settlement of a payment, against a loopback Stripe", () => {
  let stripe: FakeStripe;
  /** The platform's own Stripe (no connected account). */
  let platform: StripeProvider;
  /** The vendor's platform acting as a shop's connected account (direct charges). */
  let connected: StripeProvider;
  let account: string;

  /** Monday 2025-03-10, 22:30 in Brazil (UTC-3): already Tuesday in UTC, the day Stripe counts. */
  const PAID_AT = new Date('2025-03-11T01:30:00Z');

  beforeAll(async () => {
    stripe = new FakeStripe();
    await stripe.start();
    stripe.clock = () => PAID_AT;
    const sdk = new Stripe(stripe.secretKey, {
      maxNetworkRetries: 0,
      telemetry: false,
      ...hostOptions(stripe.url),
    });
    const created = await sdk.accounts.create({
      type: 'express',
      country: 'BR',
      capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
    });
    account = created.id;
    await stripe.completeOnboarding(account);
    const settings = {
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
      clock: () => PAID_AT,
    };
    platform = new StripeProvider({ ...settings, apiUrl: stripe.url });
    connected = new StripeProvider({ ...settings, apiUrl: stripe.url, stripeAccount: account });
  });
  afterAll(async () => {
    await stripe?.stop();
  });
  beforeEach(() => {
    stripe.pricing = {
      card: { percent: 3.99, fixed: 39, availableAfterDays: 30 },
      pix: { percent: 1.19, fixed: 0, availableAfterDays: 1 },
      boleto: { percent: 0, fixed: 345, availableAfterDays: 2 },
    };
    stripe.feeTaxPercent = 0;
    stripe.conversion = undefined;
  });

  const brl = (amountMinor: number): Money => ({ amountMinor, currency: 'BRL' });
  /**
   * What the fake's default card payment tells besides the money: paid at its clock, by Maria
   * Souza (Checkout asked no tax id: the name only), a credit Visa ending 4242 with its code, taken
   * by Stripe Brasil (a charge in BRL).
   */
  const CARD_FACTS = {
    paidAt: PAID_AT.toISOString(),
    payer: { name: 'Maria Souza' },
    card: {
      brand: 'visa',
      last4: '4242',
      funding: 'credit',
      authorizationCode: expect.stringMatching(/^\d{6}$/),
    },
    institutionCnpj: '22121209000146',
  };

  function request(amount: Money, vendorFee?: Money): CheckoutRequest {
    const checkoutId = newCheckoutId();
    return {
      checkoutId,
      serviceId: 1004,
      amount,
      lines: [{ label: 'Pedido 1004', amountMinor: amount.amountMinor }],
      description: 'Pedido 1004',
      returnUrl: `http://127.0.0.1:9/return?checkout_id=${checkoutId}`,
      cancelUrl: `http://127.0.0.1:9/cancel?checkout_id=${checkoutId}`,
      createdAt: PAID_AT,
      expiresAt: new Date(PAID_AT.getTime() + 3600_000),
      ...(vendorFee ? { vendorFee } : {}),
    };
  }

  async function open(provider: PaymentProvider, amount: Money, vendorFee?: Money) {
    const asked = request(amount, vendorFee);
    const { providerRef } = await provider.createCheckout(asked);
    const ref = { providerRef, checkoutId: asked.checkoutId };
    const status = () => provider.getStatus(ref);
    const refund = () => provider.refundPayment?.(ref, 'plan_expired');
    return { providerRef, status, refund };
  }

  it('a card in 3 installments on a connected account with the vendor fee: every figure, still there once refunded', async () => {
    const { providerRef, status } = await open(connected, brl(53_035), brl(500));
    expect(await status()).not.toHaveProperty('settlement');
    stripe.pay(providerRef, 'card', { installments: 3 });

    const paid = await status();
    // Stripe's fee: 3.99 % of 530.35 (21.16) and 0.39; the vendor's 5.00 is not in it; the net is
    // 530.35 less both. Available 30 days after the charge's day in UTC (2025-03-11).
    expect(paid).toEqual({
      state: 'paid',
      transactionId: expect.stringMatching(/^pi_/),
      amount: brl(53_035),
      method: 'card',
      settlement: {
        providerFee: brl(2_155),
        net: brl(50_380),
        releaseDate: '2025-04-10',
        installments: 3,
        ...CARD_FACTS,
      },
    });
    // Read as the connected account, with the charge's balance transaction expanded.
    const read = stripe.requests.findLast((r) => r.path === `/v1/checkout/sessions/${providerRef}`);
    expect(read?.stripeAccount).toBe(account);
    const charge = stripe.chargeOf(providerRef);
    const transaction = stripe.balanceTransactions.get(charge.balance_transaction ?? '');
    expect(transaction).toMatchObject({
      amount: 53_035,
      currency: 'brl',
      fee: 2_655,
      net: 50_380,
      type: 'charge',
      fee_details: [
        { type: 'stripe_fee', amount: 2_155, application: null },
        { type: 'application_fee', amount: 500, application: stripe.application },
      ],
    });

    stripe.refund(providerRef);
    const refunded = await status();
    expect(refunded).toMatchObject({ state: 'refunded', transactionId: paid.transactionId });
    expect(refunded.settlement).toEqual(paid.settlement);
  });

  it('a Pix: its fee, net, next-day release, one installment and its end-to-end id', async () => {
    const { providerRef, status } = await open(platform, brl(10_000));
    stripe.pay(providerRef, 'pix');
    // Under way: no money moved yet, nothing to report.
    expect(await status()).toEqual({
      state: 'processing',
      transactionId: expect.stringMatching(/^pi_/),
      method: 'pix',
    });
    const e2e = 'E1823612020250311013012345abcdef';
    stripe.settle(providerRef, true, { bankTransactionId: e2e });
    expect(await status()).toMatchObject({
      state: 'paid',
      method: 'pix',
      settlement: {
        providerFee: brl(119),
        net: brl(9_881),
        releaseDate: '2025-03-12',
        installments: 1,
        pixE2e: e2e,
        paidAt: PAID_AT.toISOString(),
        institutionCnpj: '22121209000146',
      },
    });
    // Checkout collects no name for a Pix (only the email): no payer; a Pix has no card.
    const { settlement } = await status();
    expect(settlement).not.toHaveProperty('payer');
    expect(settlement).not.toHaveProperty('card');
  });

  it("a card without a plan, and Stripe's tax on its fee: the tax is the provider's, installments absent", async () => {
    stripe.feeTaxPercent = 10;
    const { providerRef, status } = await open(platform, brl(20_000));
    stripe.pay(providerRef, 'card');
    // 3.99 % of 200.00 (7.98) and 0.39 is 8.37; its 10 % tax 0.84.
    expect((await status()).settlement).toEqual({
      providerFee: brl(921),
      net: brl(19_079),
      releaseDate: '2025-04-10',
      ...CARD_FACTS,
    });
  });

  it('a conversion: the fee and the net are in another currency, so absent; the rest stays', async () => {
    stripe.conversion = { currency: 'brl', rate: 5.4321 };
    const { providerRef, status } = await open(connected, { amountMinor: 10_000, currency: 'USD' });
    stripe.pay(providerRef, 'card', { installments: 2 });
    const paid = await status();
    expect(paid).toMatchObject({ state: 'paid', amount: { amountMinor: 10_000, currency: 'USD' } });
    // A Brazilian account's charge, in whatever money: Stripe Brasil's.
    expect(paid.settlement).toEqual({ releaseDate: '2025-04-10', installments: 2, ...CARD_FACTS });
    const charge = stripe.chargeOf(providerRef);
    expect(stripe.balanceTransactions.get(charge.balance_transaction ?? '')).toMatchObject({
      amount: 54_321,
      currency: 'brl',
      exchange_rate: 5.4321,
    });
  });

  it("a charge taken by an account outside Brazil names no institution: not Stripe Brasil's", async () => {
    const sdk = new Stripe(stripe.secretKey, { maxNetworkRetries: 0, ...hostOptions(stripe.url) });
    const created = await sdk.accounts.create({
      type: 'express',
      country: 'US',
      capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
    });
    await stripe.completeOnboarding(created.id);
    const abroad = new StripeProvider({
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
      clock: () => PAID_AT,
      apiUrl: stripe.url,
      stripeAccount: created.id,
    });
    const { providerRef, status } = await open(abroad, brl(10_000));
    stripe.pay(providerRef, 'card');
    const paid = await status();
    expect(paid.state).toBe('paid');
    expect(paid.settlement).toMatchObject({ card: { brand: 'visa', last4: '4242' } });
    expect(paid.settlement).not.toHaveProperty('institutionCnpj');
  });

  it('gives a payment back when the connector asks: once, done when refunded before, a boleto refused', async () => {
    const refunds = () =>
      stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds');
    const before = refunds().length;
    const card = await open(connected, brl(10_000));
    expect(await card.refund()).toBeUndefined();
    stripe.pay(card.providerRef, 'card');
    expect(await card.refund()).toMatch(/^refund asked at Stripe \(re_/);
    expect(await card.status()).toMatchObject({ state: 'refunded', reason: 'refunded at Stripe' });
    // Asked again (a retried job): the same refund, by its idempotency key.
    expect(await card.refund()).toMatch(/^refund asked at Stripe/);
    expect(stripe.refundsOf(stripe.chargeOf(card.providerRef).id)).toHaveLength(1);
    expect(refunds().length - before).toBe(2);

    // Refunded in Stripe's dashboard before: Stripe's charge_already_refunded means done.
    const dashboard = await open(platform, brl(10_000));
    stripe.pay(dashboard.providerRef, 'card');
    stripe.refund(dashboard.providerRef);
    expect(await dashboard.refund()).toMatch(/^refunded at Stripe/);

    const boleto = await open(platform, brl(10_000));
    stripe.pay(boleto.providerRef, 'boleto', {
      payer: { name: 'Maria Souza', taxId: '52998224725' },
    });
    stripe.settle(boleto.providerRef, true);
    await expect(boleto.refund()).rejects.toMatchObject({ code: 'PROVIDER_REJECTED' });
  });

  it("a dispute carries the payment's settlement too", async () => {
    const { providerRef, status } = await open(platform, brl(10_000));
    stripe.pay(providerRef, 'card');
    const paid = await status();
    stripe.dispute(providerRef);
    const disputed = await status();
    expect(disputed.state).toBe('charged_back');
    expect(disputed.settlement).toEqual(paid.settlement);
    expect(disputed.settlement).toEqual({
      providerFee: brl(438),
      net: brl(9_562),
      releaseDate: '2025-04-10',
      ...CARD_FACTS,
    });
  });

  it('a balance transaction retrievable on its own, only as its account', async () => {
    const { providerRef } = await open(connected, brl(10_000));
    stripe.pay(providerRef, 'card');
    const id = stripe.chargeOf(providerRef).balance_transaction ?? '';
    const sdk = new Stripe(stripe.secretKey, {
      maxNetworkRetries: 0,
      telemetry: false,
      ...hostOptions(stripe.url),
    });
    const read = await sdk.balanceTransactions.retrieve(id, {}, { stripeAccount: account });
    expect(read).toMatchObject({ id, object: 'balance_transaction', source: expect.any(String) });
    await expect(sdk.balanceTransactions.retrieve(id)).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('settlementOf through sessionStatus: what Stripe does not say stays absent', () => {
  const paidSession = (charge: Record<string, unknown>) =>
    ({
      id: 'cs_test_1',
      status: 'complete',
      payment_status: 'paid',
      amount_total: 10_000,
      currency: 'brl',
      payment_intent: {
        id: 'pi_1',
        status: 'succeeded',
        payment_method: null,
        payment_method_types: ['card'],
        latest_charge: {
          id: 'ch_1',
          amount: 10_000,
          amount_refunded: 0,
          refunded: false,
          disputed: false,
          balance_transaction: null,
          payment_method_details: { type: 'card', card: { installments: null } },
          ...charge,
        },
      },
    }) as unknown as Stripe.Checkout.Session;
  const transaction = (feeDetails: Array<Record<string, unknown>>, fee: number) => ({
    id: 'txn_1',
    object: 'balance_transaction',
    amount: 10_000,
    currency: 'brl',
    available_on: 1_741_651_200,
    fee,
    fee_details: feeDetails.map((detail) => ({ currency: 'brl', application: null, ...detail })),
    net: 10_000 - fee,
  });

  it('no balance transaction expanded and a card without a plan: no settlement at all', () => {
    expect(sessionStatus(paidSession({ balance_transaction: 'txn_1' }))).not.toHaveProperty(
      'settlement',
    );
  });

  it("a fee of a kind not known, or a tax earned by an application: the net only, Stripe's own figure", () => {
    for (const unknown of [
      { type: 'withheld_tax', amount: 50 },
      { type: 'tax', amount: 50, application: 'ca_other' },
    ]) {
      const settled = sessionStatus(
        paidSession({
          balance_transaction: transaction([{ type: 'stripe_fee', amount: 400 }, unknown], 450),
        }),
      ).settlement;
      expect(settled).toEqual({
        net: { amountMinor: 9_550, currency: 'BRL' },
        releaseDate: '2025-03-11',
      });
    }
  });

  it('fee details that do not add up to the fee: no provider fee', () => {
    const settled = sessionStatus(
      paidSession({ balance_transaction: transaction([{ type: 'stripe_fee', amount: 400 }], 450) }),
    ).settlement;
    expect(settled).not.toHaveProperty('providerFee');
    expect(settled?.net).toEqual({ amountMinor: 9_550, currency: 'BRL' });
  });

  it("a passthrough fee is Stripe's to collect: in the provider's fee", () => {
    const settled = sessionStatus(
      paidSession({
        balance_transaction: transaction(
          [
            { type: 'stripe_fee', amount: 400 },
            { type: 'payment_method_passthrough_fee', amount: 30 },
          ],
          430,
        ),
      }),
    ).settlement;
    expect(settled?.providerFee).toEqual({ amountMinor: 430, currency: 'BRL' });
  });

  it("a Pix's bank_transaction_id not in the end-to-end id's form is not taken", () => {
    const settled = sessionStatus(
      paidSession({
        payment_method_details: { type: 'pix', pix: { bank_transaction_id: 'abc123' } },
      }),
    ).settlement;
    expect(settled).toEqual({ installments: 1 });
  });

  it("the charge's own authorization_code where the card's details carry none; values of another type left out", () => {
    const settled = sessionStatus(
      paidSession({
        authorization_code: 'T0P123',
        billing_details: { name: 42, tax_id: { value: 'x' } },
        payment_method_details: {
          type: 'card',
          card: { installments: null, brand: 'elo', last4: '0004', funding: 'debit' },
        },
      }),
    ).settlement;
    expect(settled).toEqual({
      card: { brand: 'elo', last4: '0004', funding: 'debit', authorizationCode: 'T0P123' },
    });
  });

  it('a revolving plan (no count) leaves the installments absent', () => {
    const settled = sessionStatus(
      paidSession({
        payment_method_details: {
          type: 'card',
          card: { installments: { plan: { type: 'revolving', count: null, interval: null } } },
        },
      }),
    ).settlement;
    expect(settled).toBeUndefined();
  });
});
