import type { CheckoutRecord } from '../../../src/checkout/checkout-record';
import {
  incidentRecord,
  paidRecord,
  paymentRecordSchema,
  recordIdOf,
} from '../../../src/checkout/payment-record';
import { readRecord } from '../../../src/store/checkout-codec';

/*
 * The payment record's figures (docs/payments-to-the-erp.md): what the checkout knows, what the
 * provider reported, null where nobody said, never a guess; and the settlement as the store keeps
 * it, read back whatever a field holds.
 */
const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });
const NOW = new Date('2026-11-28T12:00:00.000Z');

const base: CheckoutRecord = {
  checkoutId: 'chk_acme_0123456789abcdef01234567',
  shop: 'acme',
  serviceId: 1004,
  state: 'reported',
  outcome: 'paid',
  provider: 'mercadopago',
  amount: BRL(100_000),
  transactionId: '987654321',
  createdAt: '2026-11-28T11:00:00.000Z',
  updatedAt: '2026-11-28T11:05:00.000Z',
  expiresAt: '2026-11-29T11:00:00.000Z',
  reachedAt: { paid: '2026-11-28T11:04:00.000Z' },
};

describe('the paid record', () => {
  it('a card in installments on a connected shop: the order, the interest, both fees, the net', () => {
    const record = paidRecord(
      {
        ...base,
        method: 'card',
        collected: BRL(108_990),
        interest: BRL(8_990),
        vendorFee: BRL(2_500),
        settlement: {
          providerFee: BRL(5_439),
          net: BRL(101_051),
          releaseDate: '2026-12-28',
          installments: 6,
        },
      },
      NOW,
    );
    expect(record).toEqual({
      schema_version: 2,
      event: 'paid',
      record_id: recordIdOf(base.checkoutId, 'paid', '987654321'),
      shop: 'acme',
      service_id: 1004,
      checkout_id: base.checkoutId,
      provider: 'mercadopago',
      method: 'card',
      installments: 6,
      amounts: {
        order: 100_000,
        interest: 8_990,
        paid: 108_990,
        provider_fee: 5_439,
        vendor_fee: 2_500,
        net: 101_051,
      },
      currency: 'BRL',
      release_date: '2026-12-28',
      provider_ids: { payment: '987654321', pix_e2e: null, pix_txid: null },
      paid_at: null,
      payer: null,
      card: null,
      nfe: { tPag: null, tBand: null, cAut: null, CNPJ: null },
      plan: null,
      occurred_at: '2026-11-28T11:04:00.000Z',
    });
    expect(paymentRecordSchema.safeParse(record).success).toBe(true);
  });

  it('the invoice fields: when it was paid, who paid, the card, and the NF-e group ready to copy', () => {
    const record = paidRecord(
      {
        ...base,
        method: 'card',
        settlement: {
          paidAt: '2026-11-28T11:03:59.000Z',
          payer: { name: 'Maria Souza', document: '52998224725' },
          card: { brand: 'elo', last4: '8311', authorizationCode: '123456', funding: 'debit' },
          institutionCnpj: '10573521000191',
        },
      },
      NOW,
    );
    expect(record).toMatchObject({
      schema_version: 2,
      paid_at: '2026-11-28T11:03:59.000Z',
      payer: { name: 'Maria Souza', document: '52998224725' },
      card: { brand: 'elo', last4: '8311', authorization_code: '123456' },
      nfe: { tPag: '04', tBand: '06', cAut: '123456', CNPJ: '10573521000191' },
    });
    expect(paymentRecordSchema.parse(record)).toEqual(record);
  });

  it.each([
    ['a Pix', 'pix', undefined, '17', null],
    ['a boleto', 'boleto', undefined, '15', null],
    ['a credit Visa', 'card', { brand: 'visa', funding: 'credit' }, '03', '01'],
    ['a debit Mastercard', 'card', { brand: 'mastercard', funding: 'debit' }, '04', '02'],
    ['an Amex', 'card', { brand: 'amex', funding: 'credit' }, '03', '03'],
    ['a Diners', 'card', { brand: 'diners', funding: 'credit' }, '03', '05'],
    ['a Hipercard', 'card', { brand: 'hipercard', funding: 'credit' }, '03', '07'],
    [
      'a prepaid card of another brand',
      'card',
      { brand: 'discover', funding: 'prepaid' },
      '99',
      '99',
    ],
    ['a card whose funding was not told', 'card', { brand: 'visa' }, null, '01'],
    ['a card told nothing of', 'card', undefined, null, null],
    ['no method told', undefined, undefined, null, null],
  ] as const)('%s: tPag %s, tBand %s', (_, method, card, tPag, tBand) => {
    const record = paidRecord({ ...base, method, settlement: card ? { card } : undefined }, NOW);
    expect(record.nfe).toMatchObject({ tPag, tBand });
  });

  it("a card's details are the card's: a Pix's record has none, whatever the settlement holds", () => {
    const record = paidRecord(
      { ...base, method: 'pix', settlement: { card: { brand: 'visa', last4: '4242' } } },
      NOW,
    );
    expect(record.card).toBeNull();
    expect(record.nfe).toEqual({ tPag: '17', tBand: null, cAut: null, CNPJ: null });
  });

  it('a provider that reports nothing: nulls, never a guess (but no vendor fee was asked: 0)', () => {
    const record = paidRecord({ ...base, reachedAt: {} }, NOW);
    expect(record).toMatchObject({
      method: null,
      installments: null,
      amounts: {
        order: 100_000,
        interest: null,
        paid: null,
        provider_fee: null,
        vendor_fee: 0,
        net: null,
      },
      release_date: null,
      occurred_at: NOW.toISOString(),
    });
  });

  it('a Pix or a boleto is one payment; its interest is none once the amount is known', () => {
    const pix = paidRecord(
      { ...base, method: 'pix', collected: BRL(100_000), settlement: { pixE2e: 'E123' } },
      NOW,
    );
    expect(pix).toMatchObject({
      installments: 1,
      amounts: { interest: 0, paid: 100_000 },
      provider_ids: { pix_e2e: 'E123' },
    });
    expect(paidRecord({ ...base, method: 'boleto' }, NOW).installments).toBe(1);
    expect(paidRecord({ ...base, method: 'card' }, NOW).installments).toBeNull();
  });

  it('its id is the checkout, the event and the payment: the same event twice, the same id', () => {
    const one = recordIdOf(base.checkoutId, 'paid', '1');
    expect(recordIdOf(base.checkoutId, 'paid', '1')).toBe(one);
    expect(recordIdOf(base.checkoutId, 'refund', '1')).not.toBe(one);
    expect(recordIdOf(base.checkoutId, 'paid', '2')).not.toBe(one);
    expect(one).toMatch(/^pay_[0-9a-f]{32}$/);
  });
});

describe('an incident record', () => {
  const paid = {
    ...base,
    method: 'card' as const,
    collected: BRL(100_000),
    settlement: { providerFee: BRL(4_990), net: BRL(95_010), releaseDate: '2026-12-28' },
  };

  it("a refund: the provider's figures now, each it no longer tells the paid outcome's", () => {
    const incident = { kind: 'refund' as const, at: NOW.toISOString(), transactionId: '987654321' };
    const now = incidentRecord(paid, incident, {
      amount: BRL(100_000),
      settlement: { providerFee: BRL(4_990), net: BRL(0) },
    });
    expect(now).toMatchObject({
      event: 'refund',
      method: 'card',
      amounts: { paid: 100_000, provider_fee: 4_990, net: 0 },
      // Not told after the refund: the day it was told at payment.
      release_date: '2026-12-28',
      occurred_at: NOW.toISOString(),
    });
    const kept = incidentRecord(paid, incident, {});
    expect(kept).toMatchObject({
      amounts: { paid: 100_000, provider_fee: 4_990, net: 95_010 },
      release_date: '2026-12-28',
    });
    expect(kept.record_id).toBe(recordIdOf(base.checkoutId, 'refund', '987654321'));
  });

  it("a refund's record keeps, field by field, what the provider told at payment and no longer tells", () => {
    const record = incidentRecord(
      {
        ...base,
        method: 'card',
        settlement: {
          net: BRL(95_000),
          paidAt: '2026-11-28T11:03:59.000Z',
          payer: { name: 'Maria Souza', document: '52998224725' },
          card: { brand: 'visa', last4: '4242', funding: 'credit' },
        },
      },
      { kind: 'refund', at: '2026-12-01T10:00:00.000Z', transactionId: '987654321' },
      // The read after the refund: the money as it stands, the payer's read failed.
      { settlement: { net: BRL(0), institutionCnpj: '19540550000121' } },
    );
    expect(record).toMatchObject({
      amounts: { net: 0 },
      paid_at: '2026-11-28T11:03:59.000Z',
      payer: { name: 'Maria Souza', document: '52998224725' },
      card: { brand: 'visa', last4: '4242' },
      nfe: { tPag: '03', tBand: '01', CNPJ: '19540550000121' },
    });
  });

  it("a late payment is another payment: nothing of the checkout's own is told as its", () => {
    const late = incidentRecord(
      paid,
      { kind: 'late_payment', at: NOW.toISOString(), transactionId: 'E999', note: 'late' },
      { amount: BRL(100_000), method: 'pix', settlement: { pixE2e: 'E999' } },
    );
    expect(late).toMatchObject({
      event: 'late_payment',
      method: 'pix',
      installments: 1,
      amounts: { order: 100_000, paid: 100_000, provider_fee: null, net: null },
      provider_ids: { payment: 'E999', pix_e2e: 'E999' },
      note: 'late',
    });
  });
});

describe('the settlement as the store keeps it', () => {
  const fields = {
    checkoutId: base.checkoutId,
    state: 'paid',
    serviceId: '1004',
    createdAt: base.createdAt,
  };

  it('reads back what was written', () => {
    const settlement = {
      providerFee: BRL(10),
      net: BRL(90),
      releaseDate: '2026-12-01',
      installments: 3,
      pixE2e: 'E1',
      pixTxid: 'chk0123456789abcdef01234567',
      paidAt: '2026-11-28T11:03:59.000Z',
      payer: { name: 'Maria Souza', document: '52998224725' },
      card: { brand: 'visa', last4: '4242', authorizationCode: 'A1B2C3', funding: 'credit' },
      institutionCnpj: '22121209000146',
    };
    const read = readRecord(base.checkoutId, {
      ...fields,
      settlement: JSON.stringify(settlement),
    }) as CheckoutRecord;
    expect(read.settlement).toEqual(settlement);
  });

  it.each([
    ['not JSON', '{', undefined],
    ['JSON of no object', '42', undefined],
    [
      'figures of the wrong kinds',
      JSON.stringify({ providerFee: { amountMinor: 1.5, currency: 'BRL' }, installments: 0 }),
      undefined,
    ],
    [
      'one good figure among bad ones',
      JSON.stringify({ releaseDate: 'tomorrow', net: BRL(5) }),
      { net: BRL(5) },
    ],
    [
      'invoice fields of the wrong shapes',
      JSON.stringify({
        paidAt: 'yesterday',
        payer: 'Maria',
        card: { last4: '42', authorizationCode: '<script>', funding: 'gift', brand: 7 },
        pixTxid: 'not a txid!',
        institutionCnpj: '10.573.521/0001-91',
      }),
      undefined,
    ],
    [
      'a payer with one part that reads',
      JSON.stringify({ payer: { name: 42, document: '529.982.247-25' } }),
      { payer: { document: '52998224725' } },
    ],
  ])('%s: what does not read is left out, the record still reads', (_, text, expected) => {
    const read = readRecord(base.checkoutId, { ...fields, settlement: text }) as CheckoutRecord;
    expect(read.state).toBe('paid');
    expect(read.settlement).toEqual(expected);
  });
});
