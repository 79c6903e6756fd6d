import { newCheckoutId } from '../../../src/checkout/checkout-record';
import type { CheckoutRequest } from '../../../src/payments/payment-provider';
import { StripeProvider } from '../../../src/payments/stripe/stripe-provider';
import { FakeStripe } from '../../support/fake-stripe';

/**
 * A checkout's Checkout Session asked for again: the produce job's retry after an attempt that
 * reached Stripe but whose answer was never recorded (a worker killed in between). Stripe
 * answers a repeated Idempotency-Key with the first answer only if the parameters are the same,
 * and refuses it otherwise (`idempotency_error`); a session's `expires_at` must be 30 minutes to
 * 24 hours from Stripe's now. Stripe's clock and the connector's move together here, a second
 * past the minute (a late request's expiry is rounded up to 10 minutes: nearly all of them).
 */
describe('Stripe: a checkout asked for again after its first answer was lost', () => {
  const MINUTE = 60_000;
  let stripe: FakeStripe;
  let now: number;
  /** How far Stripe's clock is ahead of the connector's (behind when negative). */
  let skewMs: number;
  beforeAll(async () => {
    stripe = new FakeStripe();
    await stripe.start();
    stripe.clock = () => new Date(now + skewMs);
  });
  afterAll(() => stripe?.stop());
  beforeEach(() => {
    now = Date.parse('2026-03-10T12:00:01Z');
    skewMs = 0;
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
    // 47 minutes on, the first session's expiry is 13 minutes away: a first request with it would
    // be refused, so it is not repeated.
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

  it.each([
    ['behind', -30_000],
    ['ahead', 30_000],
  ])(
    "asked too late for a checkout open two days, with Stripe's clock 30 s %s, gets a session Stripe takes",
    async (_way, skew) => {
      skewMs = skew;
      const request = opened(48 * 60);
      await provider().createCheckout(request);
      // 23 h 30 min on (11:30:01), the expiry is reckoned from 11:40:00, all but a second of
      // the 10 minutes' rounding past now: it stays inside Stripe's 24 hours all the same.
      now += (23 * 60 + 30) * MINUTE;
      const late = await provider().createCheckout(request);
      const session = stripe.sessions.get(late.providerRef);
      expect(session?.status).toBe('open');
      expect(session!.expires_at * 1000).toBeLessThanOrEqual(now + skew + 24 * 60 * MINUTE);
      expect(sessionsOf(request.checkoutId)).toHaveLength(2);
    },
  );

  it('asked again with a request that differs (the service priced again), gets a session of its own', async () => {
    const request = opened(60);
    const first = await provider().createCheckout(request);
    now += 5 * MINUTE;
    const repriced = { ...request, amount: { amountMinor: 60_000, currency: 'BRL' } };
    const second = await provider().createCheckout(repriced);
    expect(second.providerRef).not.toBe(first.providerRef);
    expect(stripe.sessions.get(second.providerRef)?.amount_total).toBe(60_000);
    // Its own retry is that session again.
    now += MINUTE;
    await expect(provider().createCheckout(repriced)).resolves.toEqual(second);
  });
});
