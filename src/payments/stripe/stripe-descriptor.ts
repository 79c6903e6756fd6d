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
      ),
    webhookSecret: z
      .string()
      .regex(/^whsec_\w+$/, "must be the endpoint's signing secret (whsec_...)"),
    environment: environmentField(STRIPE_API),
    apiUrl: httpUrl.optional(),
    paymentMethods: z
      .string()
      .regex(/^[a-z_]+(,[a-z_]+)*$/, 'must be a comma-separated list such as card,pix,boleto')
      .optional(),
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
    startWarnings: [],
  }),
});

/** The Stripe SDK is loaded only when Stripe is the provider (about 15 MB of memory otherwise). */
function loadStripe(): typeof StripeModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./stripe-provider') as typeof StripeModule;
}
