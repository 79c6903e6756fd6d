import { randomBytes } from 'node:crypto';
import {
  authorizationUrl,
  exchangeCode,
  pkcePair,
} from '../../../src/payments/mercadopago/mercadopago-oauth';
import { MercadoPagoProvider } from '../../../src/payments/mercadopago/mercadopago-provider';
import type {
  CheckoutRequest,
  PaymentProvider,
  PaymentStatus,
} from '../../../src/payments/payment-provider';
import { FakeMercadoPago, type FakePayment } from '../../support/fake-mercadopago';

/*
 * What the Mercado Pago adapter reads of a payment's money (its `settlement`: Mercado Pago's fee,
 * the net, the day it is released, the installments), against the loopback fake of Mercado Pago's
 * API: a card in installments on a shop's account connected by OAuth with the vendor's fee, a Pix,
 * and a card refunded or charged back afterwards. Every figure is worked out here by hand.
 */

/** Mercado Pago's clock: 02:30 UTC on 10 March is 22:30 on 9 March at its -04:00. */
const NOW = new Date('2025-03-10T02:30:00.000Z');
const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });
const NOTIFICATIONS = 'http://127.0.0.1:9/webhooks/mercadopago';

describe('the settlement of a Mercado Pago payment, as the adapter reads it', () => {
  let mp: FakeMercadoPago;
  /** The adapter of a shop's account connected to the vendor's application (a marketplace). */
  let connected: PaymentProvider;
  /** The adapter of the fake's own account (a shop's own token, no vendor's fee). */
  let own: PaymentProvider;

  /** The shop's owner authorizes the vendor's application: the seller's OAuth access token. */
  async function sellerToken(): Promise<string> {
    const application = {
      clientId: mp.application.clientId,
      clientSecret: mp.application.clientSecret,
      authUrl: mp.url,
      apiUrl: mp.url,
      webhookSecret: mp.webhookSecret,
    };
    const { verifier, challenge } = pkcePair();
    const redirectUri = 'https://vendor.example/connect/mercadopago/callback';
    const consent = authorizationUrl(application, { redirectUri, state: 'state-1', challenge });
    const code = new URL(mp.approve(consent)).searchParams.get('code');
    if (!code) throw new Error('Mercado Pago gave no code');
    return (await exchangeCode(application, { code, verifier, redirectUri }, () => NOW))
      .accessToken;
  }

  function adapter(accessToken: string, marketplace: boolean): PaymentProvider {
    return new MercadoPagoProvider({
      accessToken,
      webhookSecret: mp.webhookSecret,
      apiUrl: mp.url,
      notificationUrl: NOTIFICATIONS,
      payment: { methods: ['card', 'pix', 'boleto'], maxInstallments: 12 },
      marketplace,
      clock: () => NOW,
    });
  }

  beforeAll(async () => {
    mp = new FakeMercadoPago();
    mp.clock = () => NOW;
    // A card's rate chosen at Mercado Pago: 3.98%, the money in 30 days (a Pix keeps 0.99%, at once).
    mp.fees.credit_card = { percentHundredths: 398, fixedMinor: 0, releaseDays: 30 };
    await mp.start();
    connected = adapter(await sellerToken(), true);
    own = adapter(mp.accessToken, false);
  });

  afterAll(() => mp.stop());

  /** A checkout of `amountMinor` opened at Mercado Pago (a preference), `vendorFee` on it. */
  async function open(
    provider: PaymentProvider,
    amountMinor: number,
    vendorFee?: number,
  ): Promise<{
    checkoutId: string;
    status: () => Promise<PaymentStatus>;
    refund: () => Promise<string | undefined> | undefined;
  }> {
    const checkoutId = `chk_${randomBytes(12).toString('hex')}`;
    const request: CheckoutRequest = {
      checkoutId,
      serviceId: 1004,
      amount: BRL(amountMinor),
      lines: [{ label: 'Cozinha planejada', amountMinor }],
      description: 'Pedido 1004',
      returnUrl: `http://127.0.0.1:9/return/mercadopago?checkout_id=${checkoutId}`,
      cancelUrl: `http://127.0.0.1:9/return/mercadopago?checkout_id=${checkoutId}&cancelled=1`,
      createdAt: NOW,
      expiresAt: new Date(NOW.getTime() + 86_400_000),
      ...(vendorFee === undefined ? {} : { vendorFee: BRL(vendorFee) }),
    };
    const { providerRef } = await provider.createCheckout(request);
    return {
      checkoutId,
      status: () => provider.getStatus({ providerRef, checkoutId }),
      refund: () => provider.refundPayment?.({ providerRef, checkoutId }, 'plan_expired'),
    };
  }

  /**
   * R$ 1.200,00 on the connected account, the vendor's fee R$ 36,00, paid by card in 6
   * installments with R$ 72,00 of interest; the card's rate here 3.98%, the money in 30 days.
   */
  async function cardInSix(): Promise<{
    payment: FakePayment;
    status: () => Promise<PaymentStatus>;
  }> {
    const { checkoutId, status } = await open(connected, 120_000, 3_600);
    const preference = mp.preferenceFor(checkoutId)!;
    const payment = mp.pay(preference, 'approved', undefined, { installments: 6, interest: 72 });
    return { payment, status };
  }

  /**
   * Of R$ 1.200,00: Mercado Pago's 3.98% is R$ 47,76; the net R$ 1.200,00 − 47,76 − 36,00 (the
   * vendor's) = R$ 1.116,24; approved at 22:30 on 9 March (-04:00), released 30 days later: 8 April
   * as Mercado Pago writes it (9 April in UTC).
   */
  /** What every payment of the fake's default payer tells besides its money. */
  const PAID_BY = {
    paidAt: NOW.toISOString(),
    payer: { name: 'Maria Souza', document: '52998224725' },
    institutionCnpj: '10573521000191',
  };
  const CARD_SETTLEMENT = {
    providerFee: BRL(4_776),
    net: BRL(111_624),
    releaseDate: '2025-04-08',
    installments: 6,
    ...PAID_BY,
    // Mercado Pago's `master`, a credit_card: its test Mastercard ending 6351.
    card: {
      brand: 'mastercard',
      last4: '6351',
      funding: 'credit',
      authorizationCode: expect.stringMatching(/^\d{6}$/),
    },
  };

  it('reports a card in 6 installments on a connected account: fee, net, release day, installments', async () => {
    const { payment, status } = await cardInSix();
    // Mercado Pago lists its own fee, the vendor's and the buyer's financing apart.
    expect(payment.fee_details).toEqual(
      expect.arrayContaining([
        { type: 'financing_fee', amount: 72, fee_payer: 'payer' },
        { type: 'application_fee', amount: 36, fee_payer: 'collector' },
        { type: 'mercadopago_fee', amount: 47.76, fee_payer: 'collector' },
      ]),
    );
    expect(payment.money_release_date).toBe('2025-04-08T22:30:00.000-04:00');
    const read = await status();
    expect(read).toMatchObject({
      state: 'paid',
      transactionId: String(payment.id),
      method: 'card',
      amount: BRL(127_200),
      interest: BRL(7_200),
    });
    // Exactly these: the vendor's fee is not Mercado Pago's, and a card has no end-to-end id.
    expect(read.settlement).toEqual(CARD_SETTLEMENT);
  });

  it('reports a Pix once it is approved, in one payment, with no end-to-end id', async () => {
    const { checkoutId, status } = await open(own, 53_035);
    const pix = mp.pay(mp.preferenceFor(checkoutId)!, 'pending', undefined, {
      paymentType: 'bank_transfer',
    });
    const waiting = await status();
    expect(waiting).toMatchObject({ state: 'processing', method: 'pix' });
    expect(waiting).not.toHaveProperty('settlement');
    mp.update(pix, 'approved');
    const read = await status();
    expect(read).toMatchObject({ state: 'paid', method: 'pix', amount: BRL(53_035) });
    expect(read).not.toHaveProperty('interest');
    // 0.99% of R$ 530,35 is R$ 5,250465: R$ 5,25; the net R$ 525,10; the money at once, on the
    // day Mercado Pago wrote (9 March at its -04:00, though already 10 March in UTC).
    expect(read.settlement).toEqual({
      providerFee: BRL(525),
      net: BRL(52_510),
      releaseDate: '2025-03-09',
      installments: 1,
      ...PAID_BY,
    });
  });

  it('keeps the settlement on a card refunded, or charged back, afterwards', async () => {
    const refunded = await cardInSix();
    expect((await refunded.status()).settlement).toEqual(CARD_SETTLEMENT);
    mp.update(refunded.payment, 'refunded');
    expect(await refunded.status()).toMatchObject({
      state: 'refunded',
      transactionId: String(refunded.payment.id),
      reason: 'payment refunded at Mercado Pago',
      settlement: CARD_SETTLEMENT,
    });
    const disputed = await cardInSix();
    mp.update(disputed.payment, 'charged_back');
    const read = await disputed.status();
    expect(read.state).toBe('charged_back');
    expect(read.settlement).toEqual(CARD_SETTLEMENT);
  });

  it('leaves out what Mercado Pago does not report, and reports nothing of a refused card', async () => {
    const { checkoutId, status } = await open(own, 20_000);
    const preference = mp.preferenceFor(checkoutId)!;
    const refused = mp.pay(preference, 'rejected');
    expect(await status()).not.toHaveProperty('settlement');
    const paid = mp.pay(preference, 'approved', undefined, { installments: 3 });
    // A payment without its fee or its net, and a release "date" that is no date (the reference
    // says the field may read "pending"): only the installments are told.
    paid.fee_details = paid.fee_details.filter((fee) => fee.type !== 'mercadopago_fee');
    (paid.transaction_details as { net_received_amount?: number }).net_received_amount = undefined;
    paid.money_release_date = 'pending';
    // Nor who paid, nor when, nor the card's details.
    Object.assign(paid, { date_approved: null, card: {}, authorization_code: null });
    Object.assign(paid.payer, { first_name: '', last_name: '', identification: {} });
    const read = await status();
    expect(read).toMatchObject({ state: 'paid', transactionId: String(paid.id) });
    expect(read.transactionId).not.toBe(String(refused.id));
    // The card's brand and funding are its method's and type's; Mercado Pago took it.
    expect(read.settlement).toEqual({
      installments: 3,
      card: { brand: 'mastercard', funding: 'credit' },
      institutionCnpj: '10573521000191',
    });
  });

  it('gives an approved payment back in full when the connector asks, once, keyed by the payment', async () => {
    const { checkoutId, status, refund } = await open(own, 20_000);
    expect(await refund()).toBeUndefined();
    const payment = mp.pay(mp.preferenceFor(checkoutId)!, 'approved');
    const posts = () =>
      mp.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/${payment.id}/refunds`));
    expect(await refund()).toMatch(/^refund asked at Mercado Pago/);
    expect(await status()).toMatchObject({ state: 'refunded', transactionId: String(payment.id) });
    expect(posts().map((r) => r.idempotencyKey)).toEqual([`refund:${payment.id}`]);
    // Asked again: the payment reads refunded, nothing more is asked.
    expect(await refund()).toMatch(/^refunded at Mercado Pago/);
    expect(posts()).toHaveLength(1);
  });

  it('a checkout paid twice (a second approved payment): each given back, by its own key', async () => {
    const { checkoutId, status, refund } = await open(own, 20_000);
    const preference = mp.preferenceFor(checkoutId)!;
    const first = mp.pay(preference, 'approved');
    const second = mp.pay(preference, 'approved');
    const posts = (id: number) =>
      mp.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/${id}/refunds`)).length;
    expect(await refund()).toMatch(/^refund asked at Mercado Pago/);
    expect(await refund()).toMatch(/^refund asked at Mercado Pago/);
    expect([posts(first.id), posts(second.id)]).toEqual([1, 1]);
    expect([first.status, second.status]).toEqual(['refunded', 'refunded']);
    expect(await status()).toMatchObject({ state: 'refunded' });
  });
});
