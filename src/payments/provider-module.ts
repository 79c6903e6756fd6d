import type { PaymentProvider } from './payment-provider';
import type { PixCharges } from './pix/pix-charges';
import type { SandboxProvider } from './sandbox/sandbox-provider';

/** What a provider's own routes may ask of the connector. */
export interface ProviderHooks {
  /**
   * Something may have changed for this checkout at the provider (a button on the sandbox page,
   * like a webhook): read the truth from the provider and record it.
   */
  hint(checkoutId: string): Promise<void>;
}

/**
 * A payment provider as the registry builds it: the adapter the use cases call, and, for the
 * sandbox, the sandbox itself, whose payment page (src/payments/sandbox/sandbox-routes.ts) is
 * served for every shop whose provider it is.
 */
export interface ProviderModule {
  provider: PaymentProvider;
  sandbox?: SandboxProvider;
  /** For the API Pix, the shop's charges, which the connector's own Pix page shows. */
  pix?: { charges: Pick<PixCharges, 'find'> };
  /** A banner every customer page shows, when the deployment needs one (the sandbox on staging). */
  pageNotice?: string;
}
