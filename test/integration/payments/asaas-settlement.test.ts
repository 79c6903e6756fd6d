import { newCheckoutId } from '../../../src/checkout/checkout-record';
import { planStatus, type Payment } from '../../../src/payments/asaas/asaas-payments';
import { AsaasProvider } from '../../../src/payments/asaas/asaas-provider';
import type { CreatedCheckouts } from '../../../src/payments/created-checkouts';
import type {
  CreatedCheckout,
  PaymentProvider,
  PaymentStatus,
} from '../../../src/payments/payment-provider';
import { FakeAsaas, type FakeCheckout, type FakePayment } from '../../support/fake-asaas';

/**
 * The settlement Asaas's adapter reads from its payments (fee, net, release date, installments,
 * a Pix's end-to-end id), against the fake Asaas on loopback: the adapter as a shop connected
 * with a vendor builds it, its checkouts splitting the vendor's fee to the vendor's wallet.
 */

/** Noon in Brasília (15:00 UTC): the fake's and the adapter's time, so Asaas's dates are known. */
const NOW = new Date('2025-03-10T15:00:00Z');
const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });
/** Asaas takes every payment made through it. */
const ASAAS = { institutionCnpj: '19540550000121' };
/**
 * What a payment of the fake's default customer tells besides its money: the day it was paid (the
 * day only, as Asaas writes it), its customer (GET /v3/customers/{id}), Asaas.
 */
const PAID_BY = {
  paidAt: '2025-03-10',
  payer: { name: 'Maria Souza', document: '52998224725' },
  ...ASAAS,
};
/** ... and a card's: the fake's default, Asaas's own example (a Mastercard ending 8829). */
const CARD_FACTS = {
  ...PAID_BY,
  // No authorization code, nor credit or debit: Asaas's payment tells neither.
  card: { brand: 'mastercard', last4: '8829' },
};

/** The adapter as a shop's settings build it: Pix and card in up to 12 installments. */
function adapter(asaas: FakeAsaas, vendorWalletId?: string): AsaasProvider {
  return new AsaasProvider({
    apiKey: asaas.apiKey,
    webhookToken: asaas.webhookToken,
    apiUrl: `${asaas.url}/v3`,
    payment: { methods: ['pix', 'card'], maxInstallments: 12 },
    ...(vendorWalletId ? { vendorWalletId } : {}),
    created: memoryCreated(),
    clock: () => NOW,
  });
}

/** Kept in memory: the adapter's record of the checkouts it made (Redis's, in production). */
function memoryCreated(): CreatedCheckouts {
  const kept = new Map<string, CreatedCheckout>();
  return {
    find: async (checkoutId) => kept.get(checkoutId),
    keep: async (checkoutId, created) => {
      if (!kept.has(checkoutId)) kept.set(checkoutId, created);
      return kept.get(checkoutId)!;
    },
  };
}

describe("Asaas's settlement of a payment, read from Asaas's payments", () => {
  const asaas = new FakeAsaas();
  let vendor: AsaasProvider;
  let alone: AsaasProvider;

  beforeAll(async () => {
    await asaas.start();
    asaas.clock = () => NOW;
    // Asaas's public prices, set here so the figures below do not move with the fake's defaults.
    asaas.fees = {
      pixMinor: 199,
      card: [
        { upTo: 1, percentHundredths: 299 },
        { upTo: 6, percentHundredths: 349 },
        { upTo: 12, percentHundredths: 399 },
      ],
      cardFixedMinor: 49,
    };
    vendor = adapter(asaas, asaas.rootWalletId);
    alone = adapter(asaas);
  });
  afterAll(() => asaas.stop());

  /** A checkout of R$ 300,00, R$ 10,00 of it the vendor's fee (when the adapter has a vendor). */
  async function open(provider: AsaasProvider) {
    const checkoutId = newCheckoutId();
    const created = await provider.createCheckout({
      checkoutId,
      serviceId: 2001,
      amount: BRL(30_000),
      lines: [{ label: 'Corte', amountMinor: 30_000 }],
      description: 'Pedido 2001',
      returnUrl: 'https://shop.example/return',
      cancelUrl: 'https://shop.example/cancel',
      createdAt: NOW,
      expiresAt: new Date(NOW.getTime() + 3_600_000),
      vendorFee: provider === vendor ? BRL(1_000) : undefined,
    });
    const checkout = asaas.checkouts.get(created.providerRef)!;
    // Through the interface the connector calls it by.
    const payments: PaymentProvider = provider;
    const status = (): Promise<PaymentStatus> =>
      payments.getStatus({ checkoutId, providerRef: created.providerRef });
    const ref = { checkoutId, providerRef: created.providerRef };
    return { checkout, status, ref };
  }

  const pixReads = () => asaas.requests.filter((r) => r.path.startsWith('/pix/transactions/'));

  it('a card in 3 installments with the vendor split: every figure, as confirmed then as received', async () => {
    const { checkout, status } = await open(vendor);
    const pixReadsBefore = pixReads().length;
    expect(checkout.splits).toEqual([
      expect.objectContaining({ walletId: asaas.rootWalletId, totalFixedValue: 10 }),
    ]);
    const plan = asaas.pay(checkout, { billingType: 'CREDIT_CARD', installments: 3 });
    // Asaas's 3,49% on each R$ 100,00 (R$ 3,49), and R$ 0,49 once, on the first installment.
    expect(plan.map((p) => p.netValue)).toEqual([96.02, 96.51, 96.51]);
    // The vendor's R$ 10,00 shared among the installments, taken from their net.
    expect(plan.map((p) => p.split?.map((s) => [s.totalValue, s.status]))).toEqual([
      [[3.33, 'AWAITING_CREDIT']],
      [[3.33, 'AWAITING_CREDIT']],
      [[3.34, 'AWAITING_CREDIT']],
    ]);
    const confirmed = await status();
    expect(confirmed).toMatchObject({ state: 'paid', method: 'card', amount: BRL(30_000) });
    expect(confirmed.settlement).toEqual({
      providerFee: BRL(1_096),
      // R$ 300,00 - R$ 10,96 of Asaas's fee - R$ 10,00 of the vendor's.
      net: BRL(27_904),
      // Not yet credited: the last installment's estimatedCreditDate (32, 62 and 92 days on).
      releaseDate: '2025-06-10',
      installments: 3,
      ...CARD_FACTS,
    });
    expect(plan.map((p) => [p.estimatedCreditDate, p.creditDate])).toEqual([
      ['2025-04-11', null],
      ['2025-05-11', null],
      ['2025-06-10', null],
    ]);

    asaas.update(plan, 'RECEIVED');
    expect(plan.map((p) => p.creditDate)).toEqual(['2025-04-11', '2025-05-11', '2025-06-10']);
    expect(plan.flatMap((p) => p.split?.map((s) => s.status))).toEqual(['DONE', 'DONE', 'DONE']);
    expect((await status()).settlement).toEqual(confirmed.settlement);
    // No Pix here: no read of a Pix transaction.
    expect(pixReads()).toHaveLength(pixReadsBefore);
    // The payer read once, however often the payment is read again (the watch, an incident).
    const customerReads = asaas.requests.filter(
      (r) => r.path === `/customers/${plan[0]!.customer}`,
    );
    expect(customerReads).toHaveLength(1);
  });

  it("a Pix: Asaas's fixed fee, the split, credited the same day, and its end-to-end id read once", async () => {
    const { checkout, status } = await open(vendor);
    const [pix] = asaas.pay(checkout, { billingType: 'PIX' });
    const waiting = await status();
    expect(waiting).toMatchObject({ state: 'processing', method: 'pix' });
    expect(waiting).not.toHaveProperty('settlement');

    const before = pixReads().length;
    asaas.update([pix!], 'RECEIVED');
    const transaction = asaas.pixTransactions.get(pix!.pixTransaction ?? '');
    expect(transaction?.endToEndIdentifier).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    const paid = await status();
    expect(paid).toMatchObject({ state: 'paid', method: 'pix', amount: BRL(30_000) });
    expect(paid.settlement).toEqual({
      providerFee: BRL(199),
      // R$ 300,00 - R$ 1,99 - the vendor's R$ 10,00 (the whole of it: one payment).
      net: BRL(28_801),
      releaseDate: '2025-03-10',
      installments: 1,
      pixE2e: transaction!.endToEndIdentifier,
      ...PAID_BY,
    });
    expect(
      pixReads()
        .slice(before)
        .map((r) => [r.method, r.path]),
    ).toEqual([['GET', `/pix/transactions/${transaction!.id}`]]);
  });

  it('a Pix whose transaction Asaas does not answer is paid all the same, its id left out', async () => {
    const { checkout, status } = await open(alone);
    const [pix] = asaas.pay(checkout, { billingType: 'PIX', status: 'RECEIVED' });
    asaas.pixTransactions.delete(pix!.pixTransaction!);
    expect(await status()).toMatchObject({
      state: 'paid',
      settlement: {
        providerFee: BRL(199),
        net: BRL(29_801),
        releaseDate: '2025-03-10',
        installments: 1,
      },
    });
    expect((await status()).settlement).not.toHaveProperty('pixE2e');
  });

  it('a boleto (Asaas Checkout takes none): a received one as the payment object reports it', () => {
    // Asaas Checkout's billingTypes are CREDIT_CARD and PIX only, so the fake (written from the
    // reference) makes no boleto of a checkout: the payment object as Asaas reports a boleto.
    const boleto: Payment = {
      id: 'pay_boleto',
      status: 'RECEIVED',
      billingType: 'BOLETO',
      value: 42.23,
      netValue: 41.24,
      installment: null,
      installmentNumber: null,
      creditDate: '2024-11-06',
      estimatedCreditDate: '2024-11-06',
      anticipated: false,
      pixTransaction: null,
    };
    expect(planStatus([boleto])).toEqual({
      state: 'paid',
      transactionId: 'pay_boleto',
      method: 'boleto',
      amount: BRL(4_223),
      settlement: {
        providerFee: BRL(99),
        net: BRL(4_124),
        releaseDate: '2024-11-06',
        installments: 1,
        ...ASAAS,
      },
    });
  });

  it('a card refunded after the vendor was paid keeps the settlement it was paid with', async () => {
    const { checkout, status } = await open(vendor);
    const paid = asaas.pay(checkout, { billingType: 'CREDIT_CARD', status: 'RECEIVED' });
    const settlement = {
      // 2,99% of R$ 300,00 (R$ 8,97) and R$ 0,49.
      providerFee: BRL(946),
      net: BRL(28_054),
      releaseDate: '2025-04-11',
      installments: 1,
      ...CARD_FACTS,
    };
    expect((await status()).settlement).toEqual(settlement);
    asaas.update(paid, 'REFUNDED');
    expect(paid[0]!.split?.map((s) => s.status)).toEqual(['REFUNDED']);
    expect(await status()).toMatchObject({
      state: 'refunded',
      method: 'card',
      reason: 'payment REFUNDED at Asaas',
      settlement,
    });
  });

  it('a card refunded before the split was made (the split CANCELLED by the refund) too', async () => {
    const { checkout, status } = await open(vendor);
    const confirmed = asaas.pay(checkout, { billingType: 'CREDIT_CARD' });
    asaas.update(confirmed, 'REFUNDED');
    expect(confirmed[0]!.split).toEqual([
      expect.objectContaining({ status: 'CANCELLED', cancellationReason: 'PAYMENT_REFUNDED' }),
    ]);
    expect(await status()).toMatchObject({
      state: 'refunded',
      settlement: {
        providerFee: BRL(946),
        net: BRL(28_054),
        releaseDate: '2025-04-11',
        installments: 1,
      },
    });
  });

  it('a Pix refunded keeps its settlement and its end-to-end id', async () => {
    const { checkout, status } = await open(alone);
    const [pix] = asaas.pay(checkout, { billingType: 'PIX', status: 'RECEIVED' });
    asaas.update([pix!], 'REFUNDED');
    expect(await status()).toEqual({
      state: 'refunded',
      transactionId: pix!.id,
      method: 'pix',
      amount: BRL(30_000),
      reason: 'payment REFUNDED at Asaas',
      settlement: {
        providerFee: BRL(199),
        net: BRL(29_801),
        releaseDate: '2025-03-10',
        installments: 1,
        pixE2e: asaas.pixTransactions.get(pix!.pixTransaction!)!.endToEndIdentifier,
        ...PAID_BY,
      },
    });
  });

  it('a card plan given back by the connector: every installment, what is left of each, once; a held Pix not', async () => {
    const { checkout, status, ref } = await open(alone);
    const plan = asaas.pay(checkout, { billingType: 'CREDIT_CARD', installments: 3 });
    const refunds = () =>
      asaas.requests.filter(
        (r) => r.method === 'POST' && plan.some((p) => r.path === `/payments/${p.id}/refund`),
      );
    expect(await alone.refundPayment(ref, 'plan_expired')).toMatch(/^refund asked at Asaas/);
    expect(refunds().map((r) => [r.path, (r.body as { value?: number }).value])).toEqual(
      plan.map((p) => [`/payments/${p.id}/refund`, p.value]),
    );
    expect(plan.map((p) => p.status)).toEqual(['REFUNDED', 'REFUNDED', 'REFUNDED']);
    expect(await status()).toMatchObject({ state: 'refunded' });
    // Asked again (a retried job): read first, nothing more asked.
    expect(await alone.refundPayment(ref, 'plan_expired')).toMatch(/^refunded at Asaas/);
    expect(refunds()).toHaveLength(3);

    // A Pix Asaas holds (CONFIRMED) is not paid yet: nothing to give back.
    const held = await open(alone);
    const [heldPix] = asaas.pay(held.checkout, { billingType: 'PIX', status: 'CONFIRMED' });
    expect(await alone.refundPayment(held.ref, 'plan_expired')).toBeUndefined();
    expect(
      asaas.requests.filter((r) => r.method === 'POST' && r.path.includes(heldPix!.id)),
    ).toEqual([]);
  });

  it('a Pix the shop refunded in part at Asaas: the connector gives back what is left, then nothing', async () => {
    const { checkout, status, ref } = await open(alone);
    const [pix] = asaas.pay(checkout, { billingType: 'PIX', status: 'RECEIVED' });
    asaas.refund([pix!], { value: 100 });
    expect(pix!.status).toBe('RECEIVED');
    const before = asaas.requests.length;
    expect(await alone.refundPayment(ref, 'plan_expired')).toMatch(/^refund asked at Asaas/);
    const asked = asaas.requests.slice(before).filter((r) => r.method === 'POST');
    expect(asked.map((r) => [r.path, (r.body as { value?: number }).value])).toEqual([
      [`/payments/${pix!.id}/refund`, 200],
    ]);
    expect(pix!.status).toBe('REFUNDED');
    expect(await status()).toMatchObject({ state: 'refunded' });
    expect(await alone.refundPayment(ref, 'plan_expired')).toMatch(/^refunded at Asaas/);
  });

  describe('a figure Asaas does not settle is left out, never guessed', () => {
    async function paidByCard(): Promise<{
      checkout: FakeCheckout;
      payment: FakePayment;
      status: () => Promise<PaymentStatus>;
    }> {
      const { checkout, status } = await open(vendor);
      const [payment] = asaas.pay(checkout, { billingType: 'CREDIT_CARD', status: 'RECEIVED' });
      return { checkout, payment: payment!, status };
    }

    it('a split Asaas cancelled (the wallet could not receive) takes nothing: the shop keeps it', async () => {
      const { payment, status } = await paidByCard();
      Object.assign(payment.split![0]!, {
        status: 'CANCELLED',
        cancellationReason: 'WALLET_UNABLE_TO_RECEIVE',
      });
      expect((await status()).settlement).toEqual({
        providerFee: BRL(946),
        net: BRL(29_054),
        releaseDate: '2025-04-11',
        installments: 1,
        ...CARD_FACTS,
      });
    });

    it('a split blocked (value divergence), or of a status Asaas does not document: no net', async () => {
      const { payment, status } = await paidByCard();
      for (const blocked of ['BLOCKED_BY_VALUE_DIVERGENCE', 'SOMETHING_NEW']) {
        payment.split![0]!.status = blocked as 'DONE';
        expect((await status()).settlement).toEqual({
          providerFee: BRL(946),
          releaseDate: '2025-04-11',
          installments: 1,
          ...CARD_FACTS,
        });
      }
    });

    it('an anticipated payment: no fee, net nor date (the anticipation has its own)', async () => {
      const { payment, status } = await paidByCard();
      payment.anticipated = true;
      expect((await status()).settlement).toEqual({ installments: 1, ...CARD_FACTS });
    });

    it('a paid payment that reports no net value nor credit date: its installments only', async () => {
      const { payment, status } = await paidByCard();
      Object.assign(payment, { netValue: null, creditDate: null, estimatedCreditDate: null });
      expect((await status()).settlement).toEqual({ installments: 1, ...CARD_FACTS });
    });

    it('a payment whose customer Asaas does not answer, and that tells no day nor card: those left out', async () => {
      const { payment, status } = await paidByCard();
      asaas.customers.delete(payment.customer);
      Object.assign(payment, {
        clientPaymentDate: null,
        confirmedDate: null,
        paymentDate: null,
        creditCard: null,
      });
      expect((await status()).settlement).toEqual({
        providerFee: BRL(946),
        net: BRL(28_054),
        releaseDate: '2025-04-11',
        installments: 1,
        ...ASAAS,
      });
    });

    it('a plan of which an installment is missing: no count of installments', () => {
      const installment = (n: number): Payment => ({
        id: `pay_${n}`,
        status: 'CONFIRMED',
        billingType: 'CREDIT_CARD',
        value: 100,
        netValue: 96.51,
        installment: 'ins_1',
        installmentNumber: n,
        estimatedCreditDate: `2025-0${n + 3}-11`,
      });
      expect(planStatus([installment(1), installment(3)]).settlement).toEqual({
        providerFee: BRL(698),
        net: BRL(19_302),
        releaseDate: '2025-06-11',
        ...ASAAS,
      });
    });

    it('a payment not yet paid, or that failed, has no settlement', async () => {
      const { checkout, status } = await open(alone);
      expect(await status()).toEqual({ state: 'pending' });
      const [pix] = asaas.pay(checkout, { billingType: 'PIX' });
      expect(await status()).not.toHaveProperty('settlement');
      asaas.update([pix!], 'OVERDUE');
      expect(await status()).toMatchObject({ state: 'expired' });
      expect(await status()).not.toHaveProperty('settlement');
    });
  });
});
