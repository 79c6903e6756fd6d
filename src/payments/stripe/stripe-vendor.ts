import { z } from 'zod';
import type { VendorSpec } from '../connect-flow';
import { apiBaseUrl, withoutTrailingSlashes } from '../provider-hosts';
import { STRIPE_API } from './stripe-api';

/** The vendor's Stripe platform account (Connect), whose Express accounts the shops' are. */
export interface StripePlatform {
  /** STRIPE_CONNECT_SECRET_KEY: the vendor's Stripe platform account. */
  secretKey: string;
  /** STRIPE_CONNECT_WEBHOOK_SECRET: its Connect webhook endpoint's signing secret. */
  webhookSecret: string;
  /** STRIPE_API_URL, or Stripe's own API. */
  apiUrl: string;
}

const variables = {
  STRIPE_CONNECT_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_... or rk_...)')
    .optional()
    .describe(
      `Secret key of your Stripe platform account (Connect): with it, each shop's connect link onboards the shop as an Express account, whose payments are direct charges with your fee (docs/shops.md "Connecting a shop's provider account").`,
    ),
  STRIPE_CONNECT_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\w+$/, "must be the endpoint's signing secret (whsec_...)")
    .optional()
    .describe(
      'Signing secret of your Connect webhook endpoint `PUBLIC_URL/webhooks/stripe-connect` (events of connected accounts); required with `STRIPE_CONNECT_SECRET_KEY`.',
    ),
};

/** The vendor's platform account from the deployment's variables (its host: the env shop's). */
export const stripeVendor: VendorSpec<StripePlatform, typeof variables> = {
  variables,
  secrets: ['STRIPE_CONNECT_SECRET_KEY', 'STRIPE_CONNECT_WEBHOOK_SECRET'],
  reads: ['apiUrl'],
  required: ['STRIPE_CONNECT_SECRET_KEY', 'STRIPE_CONNECT_WEBHOOK_SECRET'],
  from(env) {
    if (!env.STRIPE_CONNECT_SECRET_KEY || !env.STRIPE_CONNECT_WEBHOOK_SECRET) return undefined;
    const apiUrl =
      typeof env.STRIPE_API_URL === 'string' && env.STRIPE_API_URL !== ''
        ? env.STRIPE_API_URL
        : apiBaseUrl(STRIPE_API);
    return {
      secretKey: env.STRIPE_CONNECT_SECRET_KEY,
      webhookSecret: env.STRIPE_CONNECT_WEBHOOK_SECRET,
      apiUrl: withoutTrailingSlashes(apiUrl),
    };
  },
  problems: () => [],
};
