import { z } from 'zod';
import { defineProvider } from '../define-provider';
import { baseUrlOf, environmentField, httpUrl } from '../provider-hosts';
import type * as StripeModule from './stripe-provider';
import { STRIPE_API, STRIPE_OFFER } from './stripe-api';

/** Stripe Checkout: its fields, keys and hosts, what it offers, and how its adapter is built. */
export const stripeProvider = defineProvider({
  name: 'stripe',
  label: STRIPE_API.label,
  credential: { kind: 'api-key' },
  fields: {
    secretKey: z
      .string()
      .regex(
        /^(sk|rk)_(test|live)_\w+$/,
        'must be a Stripe secret or restricted key (sk_... or rk_...)',
      )
      .describe(
        'Secret key (`sk_live_...` or `sk_test_...`, or a restricted `rk_` key) from the Stripe dashboard.',
      ),
    webhookSecret: z
      .string()
      .regex(/^whsec_\w+$/, "must be the endpoint's signing secret (whsec_...)")
      .describe(
        'Signing secret (`whsec_...`) of the webhook endpoint `PUBLIC_URL/webhooks/stripe`.',
      ),
    environment: environmentField(STRIPE_API).describe(
      'Stripe has one API host: empty or `production` (a test key, `sk_test_...`, selects test mode, so `sandbox` is refused).',
    ),
    apiUrl: httpUrl
      .optional()
      .describe(
        'Another Stripe API host, allowed only when its origin is in `PROVIDER_API_ORIGINS` (a local fake for tests, e.g. `http://127.0.0.1:12111`), refused at start (78) otherwise; empty for `https://api.stripe.com`.',
      ),
    paymentMethods: z
      .string()
      .regex(/^[a-z_]+(,[a-z_]+)*$/, 'must be a comma-separated list such as card,pix,boleto')
      .optional()
      .describe(
        "Stripe's own payment method types, sent as they are instead of `PAYMENT_METHODS` (kept from before it), e.g. `card,pix,boleto`; empty: from `PAYMENT_METHODS`.",
      ),
  },
  secrets: ['secretKey', 'webhookSecret'],
  variables: {
    secretKey: 'STRIPE_SECRET_KEY',
    webhookSecret: 'STRIPE_WEBHOOK_SECRET',
    environment: 'STRIPE_ENVIRONMENT',
    apiUrl: 'STRIPE_API_URL',
    paymentMethods: 'STRIPE_PAYMENT_METHODS',
  },
  api: STRIPE_API,
  offer: STRIPE_OFFER,
  settings: (document, common) => {
    const { name, paymentMethods, environment: _e, ...keys } = document;
    const apiUrl = baseUrlOf(STRIPE_API, document);
    const stripe = { ...keys, apiUrl, paymentMethods: paymentMethods?.split(',') };
    return { name, ...common, stripe };
  },
  build: (settings) => ({
    provider: new (loadStripe().StripeProvider)({ ...settings.stripe, payment: settings.payment }),
  }),
});

/** The Stripe SDK is loaded only when Stripe is the provider (about 15 MB of memory otherwise). */
function loadStripe(): typeof StripeModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./stripe-provider') as typeof StripeModule;
}
