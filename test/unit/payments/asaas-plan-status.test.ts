import { planStatus, type Payment } from '../../../src/payments/asaas/asaas-payments';

/** One payment of `billingType` in `status`. */
const payment = (billingType: string, status = 'PENDING'): Payment => ({
  id: 'pay_1',
  status,
  value: 10,
  billingType,
});

describe("Asaas's billingType, as the method a payment was made with", () => {
  it.each([
    ['CREDIT_CARD', 'card'],
    ['PIX', 'pix'],
    ['BOLETO', 'boleto'],
  ])('reads %s as %s', (billingType, method) => {
    expect(planStatus([payment(billingType)]).method).toBe(method);
  });

  it('says none while the customer has not chosen (UNDEFINED), or for another type', () => {
    for (const billingType of ['UNDEFINED', 'TRANSFER', 'constructor']) {
      expect(planStatus([payment(billingType)])).not.toHaveProperty('method');
    }
  });
});

describe("Asaas's status, read as a state", () => {
  it('reads a status it does not know, even one named like an Object property, as pending', () => {
    for (const status of ['constructor', 'toString', '__proto__', 'SOMETHING_NEW']) {
      expect(planStatus([{ id: 'pay_1', status, value: 10 }]).state).toBe('pending');
    }
  });
});

describe("Asaas's CONFIRMED: a card's is paid, a Pix's is held", () => {
  // A Pix may sit in CONFIRMED for up to 72 hours (Asaas's precautionary hold, "bloqueio
  // cautelar"), then become RECEIVED or REFUNDED: the money is not the shop's until RECEIVED.
  it.each([
    ['PIX', 'CONFIRMED', 'processing'],
    ['PIX', 'RECEIVED', 'paid'],
    ['PIX', 'REFUND_IN_PROGRESS', 'refunded'],
    ['CREDIT_CARD', 'CONFIRMED', 'paid'],
    ['CREDIT_CARD', 'RECEIVED', 'paid'],
  ])('reads a %s payment %s as %s', (billingType, status, state) => {
    expect(planStatus([payment(billingType, status)]).state).toBe(state);
  });
});
