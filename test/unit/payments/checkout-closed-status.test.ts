import {
  withCheckoutClosed,
  type CheckoutClosed,
  type PaymentStatus,
} from '../../../src/payments/payment-provider';

const CANCELED: CheckoutClosed = { state: 'canceled', reason: 'checkout CANCELED at Asaas' };
const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });

describe('withCheckoutClosed: a checkout closed at its provider, and its payments', () => {
  it('ends a checkout whose payments leave it pending, with the event’s reason', () => {
    expect(withCheckoutClosed({ state: 'pending' }, CANCELED)).toEqual({
      state: 'canceled',
      reason: 'checkout CANCELED at Asaas',
    });
  });

  it.each<PaymentStatus>([
    { state: 'paid', transactionId: 'pay_1', amount: BRL(1000) },
    { state: 'processing', transactionId: 'pay_2' },
    { state: 'refunded', transactionId: 'pay_3', reason: 'payment REFUNDED at Asaas' },
    { state: 'expired', transactionId: 'pay_4', reason: 'payment OVERDUE at Asaas' },
  ])('leaves a payment that tells its own story as it is: $state', (status) => {
    expect(withCheckoutClosed(status, CANCELED)).toBe(status);
  });

  it('changes nothing without an event about the checkout itself', () => {
    const pending: PaymentStatus = { state: 'pending' };
    expect(withCheckoutClosed(pending, undefined)).toBe(pending);
  });
});
