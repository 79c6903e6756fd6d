import {
  paymentStatus,
  type Payment,
} from '../../../src/payments/mercadopago/mercadopago-payments';

/*
 * Mercado Pago's payment statuses ("Get payment": status, with its status_detail) read as the
 * connector's states, as docs/payment-providers.md maps them. Money that is not yet the shop's
 * (authorized and not captured, in analysis, held in a dispute) is never paid.
 */
describe("Mercado Pago's payment status, read as a state", () => {
  const payment = (status: string): Payment => ({
    id: '1234567890',
    status,
    transaction_amount: 100,
    currency_id: 'BRL',
  });

  it.each([
    ['approved', 'paid'],
    ['pending', 'processing'],
    ['in_process', 'processing'],
    ['authorized', 'processing'],
    // The buyer opened a dispute (a claim): Mercado Pago holds the money until it is decided.
    ['in_mediation', 'processing'],
    ['rejected', 'failed'],
    ['cancelled', 'canceled'],
    ['refunded', 'refunded'],
    ['charged_back', 'charged_back'],
  ])('reads %s as %s', (status, state) => {
    expect(paymentStatus(payment(status)).state).toBe(state);
  });

  it('reads a status it does not know, even one named like an Object property, as pending', () => {
    for (const status of ['constructor', 'toString', 'SOMETHING_NEW']) {
      expect(paymentStatus(payment(status)).state).toBe('pending');
    }
  });
});
