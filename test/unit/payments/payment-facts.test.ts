import {
  cardBrandOf,
  cardOf,
  documentOf,
  paidAtOf,
  payerOf,
} from '../../../src/payments/payment-facts';

/*
 * What every adapter reads of who paid and with what card (src/payments/payment-facts.ts): each
 * provider's spelling made one, and what does not read as what it claims left out.
 */
describe("a card's brand, in each provider's spelling", () => {
  it.each([
    ['visa', 'visa'], // Stripe, Mercado Pago
    ['VISA', 'visa'], // Asaas
    ['debvisa', 'visa'], // Mercado Pago's debit Visa
    ['master', 'mastercard'], // Mercado Pago
    ['MASTERCARD', 'mastercard'], // Asaas
    ['debmaster', 'mastercard'],
    ['American Express', 'amex'],
    ['amex', 'amex'],
    ['Diners Club', 'diners'],
    ['ELO', 'elo'],
    ['debelo', 'elo'],
    ['hipercard', 'hipercard'],
    ['discover', 'discover'], // a brand the NF-e's table does not list: kept, its code 99
    ['unknown', undefined], // Stripe's word for none
    ['link', undefined], // Stripe's wallet: no card brand
    [42, undefined], // an answer of an unexpected shape
    ['', undefined],
    [null, undefined],
  ])('%s is %s', (word, brand) => {
    expect(cardBrandOf(word)).toBe(brand);
  });
});

describe("a payer's document", () => {
  it.each([
    ['529.982.247-25', '52998224725'],
    ['52998224725', '52998224725'],
    ['10.573.521/0001-91', '10573521000191'],
    [' 10573521000191 ', '10573521000191'],
    ['***.982.247-**', '***.982.247-**'], // a masked one: as reported
    ['', undefined],
    [null, undefined],
  ])('%s reads %s', (raw, document) => {
    expect(documentOf(raw)).toBe(document);
  });

  it('a payer is absent when the provider names neither a name nor a document', () => {
    expect(payerOf('  ', null)).toEqual({});
    expect(payerOf(' Maria Souza ', undefined)).toEqual({ payer: { name: 'Maria Souza' } });
  });
});

describe('a card', () => {
  it('keeps each detail that reads as what it is, and nothing else', () => {
    expect(
      cardOf({ brand: 'master', last4: '6351', authorizationCode: 'AB12', funding: 'credit' }),
    ).toEqual({
      card: { brand: 'mastercard', last4: '6351', authorizationCode: 'AB12', funding: 'credit' },
    });
    expect(
      cardOf({ brand: 'unknown', last4: '12345', authorizationCode: 'a b', funding: 'unknown' }),
    ).toEqual({});
    // Values of another type than the reference's: left out, never a thrown read.
    expect(cardOf({ brand: {}, last4: 4242, authorizationCode: ['A1'], funding: true })).toEqual(
      {},
    );
    expect(payerOf({ first: 'Maria' }, 52998224725)).toEqual({});
  });
});

describe('when the money moved', () => {
  it.each([
    [1_764_331_200, '2025-11-28T12:00:00.000Z'], // Stripe: seconds
    ['2026-11-28T09:03:59.000-03:00', '2026-11-28T12:03:59.000Z'], // Mercado Pago: an offset
    ['2026-11-28', '2026-11-28'], // Asaas: the day only, as written
    ['2026-02-30', undefined],
    ['yesterday', undefined],
    [null, undefined],
  ])('%s is %s', (value, paidAt) => {
    expect(paidAtOf(value).paidAt).toBe(paidAt);
  });
});
