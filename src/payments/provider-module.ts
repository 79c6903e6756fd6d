import type { PaymentProvider } from './payment-provider';

/**
 * A payment provider as the registry builds it: the adapter the use cases call, and what the
 * provider's own pages need of the shop (its descriptor's `pages`: the sandbox's payments, the
 * API Pix's charges), which they alone read.
 */
export interface ProviderModule {
  provider: PaymentProvider;
  /** What its own pages read (src/payments/provider-pages.ts), for a provider that has pages. */
  pages?: unknown;
  /** A banner every customer page shows, when the deployment needs one (the sandbox on staging). */
  pageNotice?: string;
}
