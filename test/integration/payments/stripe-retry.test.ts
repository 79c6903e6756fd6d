import { newCheckoutId } from '../../../src/checkout/checkout-record';
import type { CheckoutRequest } from '../../../src/payments/payment-provider';
import { StripeProvider } from '../../../src/payments/stripe/stripe-provider';
import { FakeStripe } from '../../support/fake-stripe';

/**
 * A checkout's Checkout Session asked for again: the produce job's retry after an attempt that
 * reached Stripe but whose answer was never recorded (a worker killed in between). Stripe
 * answers a repeated Idempotency-Key with the first answer only if the parameters are the same,
 * and refuses it otherwise (`idempotency_error`); a session's `expires_at` must be 30 minutes to
 * 24 hours from Stripe's now. Stripe's clock and the connector's move together here.
 */
describe('Stripe: a checkout asked for again after its first answer was lost', () => {
  const MINUTE = 60_000;
  let stripe: FakeStripe;
  let now: number;
  beforeAll(async () => {
    stripe = new FakeStripe();
    await stripe.start();
    stripe.clock = () => new Date(now);
  });
  afterAll(() => stripe?.stop());
  beforeEach(() => {
    now = Date.parse('2026-03-10T12:00:00Z');
  });

  const provider = () =>
    new StripeProvider({
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
      apiUrl: stripe.url,
      clock: () => new Date(now),
    });

  /** A checkout opened now, to end `openMinutes` later. */
  function opened(openMinutes: number): CheckoutRequest {
    const checkoutId = newCheckoutId();
    return {
      checkoutId,
      serviceId: 1004,
      amount: { amountMinor: 53_035, currency: 'BRL' },
      lines: [{ label: 'Pedido 1004', amountMinor: 53_035 }],
      description: 'Pedido 1004',
      returnUrl: `http://127.0.0.1:9/return?checkout_id=${checkoutId}`,
      cancelUrl: `http://127.0.0.1:9/cancel?checkout_id=${checkoutId}`,
      createdAt: new Date(now),
      expiresAt: new Date(now + openMinutes * MINUTE),
    };
  }

  const sessionsOf = (checkoutId: string) =>
    [...stripe.sessions.values()].filter((s) => s.client_reference_id === checkoutId);

  it.each([
    // Each moved Stripe's expires_at when it was reckoned from the attempt's own time.
    ['45 minutes', 20, 45],
    ['10 minutes (under the 30 Stripe allows)', 5, 10],
    ['two days (over the 24 hours Stripe allows)', 5, 48 * 60],
    ['a day', 23 * 60, 24 * 60],
  ])(
    'a checkout open for %s, asked again %d minutes later, gets the first session',
    async (_open, laterMinutes, openMinutes) => {
      const request = opened(openMinutes);
      const first = await provider().createCheckout(request);
      now += laterMinutes * MINUTE;
      const again = await provider().createCheckout(request);
      expect(again).toEqual(first);
      expect(sessionsOf(request.checkoutId)).toHaveLength(1);
      const [session] = sessionsOf(request.checkoutId);
      // Stripe keeps it open at least 30 minutes past the retry.
      expect(session!.expires_at * 1000).toBeGreaterThanOrEqual(now + 30 * MINUTE);
    },
  );

  it('asked again too late to repeat the first request, gets a session of its own, and that one again', async () => {
    const request = opened(60);
    const first = await provider().createCheckout(request);
    // 47 minutes on, the first session's expiry is 13 minutes away: Stripe would refuse it.
    now += 47 * MINUTE;
    const late = await provider().createCheckout(request);
    expect(late.providerRef).not.toBe(first.providerRef);
    const lateSession = stripe.sessions.get(late.providerRef);
    expect(lateSession?.status).toBe('open');
    expect(lateSession!.expires_at * 1000).toBeGreaterThanOrEqual(now + 30 * MINUTE);
    // A minute later still, the same late request: Stripe answers the late session again.
    now += MINUTE;
    await expect(provider().createCheckout(request)).resolves.toEqual(late);
    expect(sessionsOf(request.checkoutId)).toHaveLength(2);
  });
});
