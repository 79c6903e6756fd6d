import type { ProviderApi } from '../provider-api';

/**
 * Stripe's API (docs.stripe.com/api): one host; a test key (sk_test_, rk_test_) selects test
 * mode on it. Kept apart from stripe-provider.ts, which loads the SDK.
 */
export const STRIPE_API: ProviderApi = {
  label: 'Stripe',
  production: 'https://api.stripe.com',
  noSandbox:
    'Stripe has one API host (https://api.stripe.com): a test key (sk_test_...) selects test mode',
};
