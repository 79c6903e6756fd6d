import type { Router } from 'express';
import type { PaymentProvider } from './payment-provider';

/** What a provider's own routes may ask of the connector. */
export interface ProviderHooks {
  /**
   * Something may have changed for this checkout at the provider (a button on the sandbox page,
   * like a webhook): read the truth from the provider and record it.
   */
  hint(checkoutId: string): Promise<void>;
}

/**
 * A payment provider as the registry builds it: the adapter the use cases call, and the routes
 * it needs of its own (the sandbox's payment page), which http/ mounts as given.
 */
export interface ProviderModule {
  provider: PaymentProvider;
  routes?(hooks: ProviderHooks): Router;
  /** Said once, as a warning, when the connector starts. */
  startWarnings: string[];
  /** A banner every customer page shows, when the deployment needs one (the sandbox on staging). */
  pageNotice?: string;
}
