import type Stripe from 'stripe';
import { sessionStatus } from '../../../src/payments/stripe/stripe-provider';

describe("sessionStatus: how a Stripe payment was made, from the one read's expansions", () => {
  const session = (intent: Record<string, unknown>) =>
    ({
      id: 'cs_test_1',
      status: 'complete',
      payment_status: 'unpaid',
      amount_total: 1000,
      currency: 'brl',
      payment_intent: {
        id: 'pi_1',
        status: 'processing',
        latest_charge: null,
        payment_method: null,
        payment_method_types: ['card', 'pix', 'boleto'],
        ...intent,
      },
    }) as unknown as Stripe.Checkout.Session;

  it("reads the charge's payment_method_details.type first", () => {
    const charge = { id: 'ch_1', payment_method_details: { type: 'boleto', boleto: {} } };
    const paymentMethod = { id: 'pm_1', object: 'payment_method', type: 'pix' };
    expect(
      sessionStatus(session({ latest_charge: charge, payment_method: paymentMethod })).method,
    ).toBe('boleto');
  });

  it("then the PaymentMethod's type, then the intent's only type", () => {
    const paymentMethod = { id: 'pm_1', object: 'payment_method', type: 'pix' };
    expect(sessionStatus(session({ payment_method: paymentMethod })).method).toBe('pix');
    expect(sessionStatus(session({ payment_method_types: ['boleto'] })).method).toBe('boleto');
  });

  it('says none when Stripe does not tell, or names a method none of the three', () => {
    // Several types allowed and nothing expanded: which one is not known.
    expect(sessionStatus(session({ payment_method: 'pm_1' }))).not.toHaveProperty('method');
    const link = { id: 'pm_2', object: 'payment_method', type: 'link' };
    expect(sessionStatus(session({ payment_method: link }))).not.toHaveProperty('method');
    expect(sessionStatus(session({ payment_method_types: ['oxxo'] }))).not.toHaveProperty('method');
  });
});
