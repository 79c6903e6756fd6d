import { createHash } from 'node:crypto';
import type Stripe from 'stripe';
import type { CheckoutRequest } from '../payment-provider';
import type { PaymentOptions } from '../payment-offer';
import { feeTaken } from '../vendor-fee';

/*
 * A Checkout Session's request, as StripeProvider sends it: its parameters, its expiry within
 * Stripe's bounds, and the idempotency key that makes a retry the same request.
 */

export interface SessionSettings {
  /**
   * Stripe's own payment method types (STRIPE_PAYMENT_METHODS, kept from before PAYMENT_METHODS):
   * when set, they are sent as they are, instead of `payment`'s methods.
   */
  paymentMethods?: string[];
  payment?: PaymentOptions;
  /**
   * A connected account of the vendor's platform (Stripe Connect, `acct_...`): every call is made
   * as it (`Stripe-Account`), its payments direct charges that may carry the vendor's fee.
   */
  stripeAccount?: string;
}

/** Stripe keeps a session open between 30 minutes and 24 hours from its creation. */
const STRIPE_MIN_OPEN_S = 30 * 60;
const STRIPE_MAX_OPEN_S = 24 * 3600;
/** How far an expiry must be within Stripe's bounds, for the request's way there. */
const MARGIN_S = 60;
/**
 * The bounds a session's expiry is put within, from the time it is reckoned from: wider than
 * Stripe's least, so that a retry some minutes later can still repeat the same request.
 */
const EARLIEST_S = 60 * 60;
const LATEST_S = STRIPE_MAX_OPEN_S - 10 * 60;
/** A late request's expiry is reckoned from its time rounded up to this step (see below). */
const LATE_STEP_S = 10 * 60;

/** The checkout's own expiry, put within `latestS` and an hour of `fromS`. */
function expiryFrom(fromS: number, wantedS: number, latestS = LATEST_S): number {
  return Math.min(fromS + latestS, Math.max(fromS + EARLIEST_S, wantedS));
}

/**
 * A checkout's session expiry, the same on every attempt while it can be: reckoned from the
 * checkout's creation, as long as a first request with it would still be taken (30 minutes to 24
 * hours from now, with a margin). Later than that, from the attempt's own time rounded up to 10
 * minutes, so that retries close together still send one request; kept 10 minutes more inside
 * Stripe's 24 hours, which the rounding may use up.
 */
function sessionExpiry(createdAt: Date, expiresAt: Date, now: Date): number {
  const nowS = Math.floor(now.getTime() / 1000);
  const wantedS = Math.floor(expiresAt.getTime() / 1000);
  const fixed = expiryFrom(Math.floor(createdAt.getTime() / 1000), wantedS);
  if (
    fixed >= nowS + STRIPE_MIN_OPEN_S + MARGIN_S &&
    fixed <= nowS + STRIPE_MAX_OPEN_S - MARGIN_S
  ) {
    return fixed;
  }
  return expiryFrom(Math.ceil(nowS / LATE_STEP_S) * LATE_STEP_S, wantedS, LATEST_S - LATE_STEP_S);
}

/**
 * The Idempotency-Key of a session's request: the checkout and a digest of the parameters. A
 * retry after a lost answer sends the same request and gets that session back; a request that
 * differs (Stripe would refuse the key) gets a session of its own, the earlier one's URL unseen.
 */
export function idempotencyKey(
  checkoutId: string,
  params: Stripe.Checkout.SessionCreateParams,
): string {
  const digest = createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 32);
  return `checkout:${checkoutId}:${digest}`;
}

/**
 * The Checkout Session a checkout asks for: made from the checkout alone, the shop's settings,
 * and `now` (which a late request's expiry is reckoned from, see `sessionExpiry`).
 */
export function sessionParams(
  request: CheckoutRequest,
  settings: SessionSettings,
  now: Date,
): Stripe.Checkout.SessionCreateParams {
  const metadata = { checkout_id: request.checkoutId, service_id: String(request.serviceId) };
  const methods = methodTypes(settings, request.methods);
  return {
    mode: 'payment',
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: request.amount.currency.toLowerCase(),
          unit_amount: request.amount.amountMinor,
          product_data: {
            name: request.description,
            description: request.lines
              .map((line) => line.label)
              .join('; ')
              .slice(0, 500),
          },
        },
      },
    ],
    client_reference_id: request.checkoutId,
    metadata,
    payment_intent_data: { metadata, ...applicationFee(request, settings) },
    success_url: request.returnUrl,
    cancel_url: request.cancelUrl,
    expires_at: sessionExpiry(request.createdAt, request.expiresAt, now),
    // A filter on the methods Stripe finds eligible (the API's current form of the list).
    ...(methods
      ? {
          allowed_payment_method_types:
            methods as Stripe.Checkout.SessionCreateParams.AllowedPaymentMethodType[],
        }
      : {}),
  };
}

/** The vendor's fee on a connected account's direct charge (`application_fee_amount`). */
function applicationFee(
  request: CheckoutRequest,
  settings: SessionSettings,
): { application_fee_amount?: number } {
  const fee = feeTaken(
    request.vendorFee,
    settings.stripeAccount !== undefined,
    "Stripe takes the vendor's fee only on a connected account's direct charge.",
  );
  return fee === 0 ? {} : { application_fee_amount: fee };
}

/** `allowed_payment_method_types`: the shop's, narrowed to a request's (Stripe's types are our names). */
function methodTypes(
  settings: SessionSettings,
  requested: readonly string[] | undefined,
): string[] | undefined {
  const shop = settings.paymentMethods?.length
    ? settings.paymentMethods
    : settings.payment?.methods;
  if (!requested) return shop;
  return shop ? shop.filter((method) => requested.includes(method)) : [...requested];
}
