import { z } from 'zod';
import { defineProvider } from '../define-provider';
import { baseUrlOf, environmentField, httpUrl } from '../provider-hosts';
import type * as StripeModule from './stripe-provider';
import { STRIPE_API, STRIPE_OFFER } from './stripe-api';
import { stripeLink } from './stripe-link';

/** Stripe Checkout: its fields, keys and hosts, what it offers, and how its adapter is built. */
export const stripeProvider = defineProvider({
  name: 'stripe',
  label: STRIPE_API.label,
  credential: { kind: 'api-key' },
  connection: {
    kind: 'connect',
    flow: stripeLink,
    fields: {
      apiUrl: httpUrl
        .optional()
        .describe("The platform account's API (`STRIPE_API_URL`), when not Stripe's own."),
    },
    // The vendor's platform key acts for the account (`Stripe-Account`): the shop stores none.
    secrets: [],
    credential: 'stripe_connect',
  },
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
    const apiUrl = baseUrlOf(STRIPE_API, document);
    if (document.connection !== undefined) {
      const platform = stripeLink.accountOf(common.vendor);
      if (!platform) {
        throw new Error(
          'a shop connected to Stripe needs STRIPE_CONNECT_SECRET_KEY and STRIPE_CONNECT_WEBHOOK_SECRET in this deployment',
        );
      }
      const stripe = {
        secretKey: platform.secretKey,
        webhookSecret: platform.webhookSecret,
        apiUrl,
        paymentMethods: undefined,
        stripeAccount: document.account,
      };
      return { name: document.name, ...common, stripe };
    }
    const { name, paymentMethods, environment: _e, connection: _c, ...keys } = document;
    const stripe = {
      ...keys,
      apiUrl,
      paymentMethods: paymentMethods?.split(','),
      stripeAccount: undefined,
    };
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
