import type { Institution } from './payment-facts';

/**
 * Where a provider's API is: its official base URLs, production and (where the provider has
 * one) sandbox. Each provider declares its own (src/payments/<name>/<name>-api.ts); a shop's
 * document chooses with `"environment"`, and any other host needs PROVIDER_API_ORIGINS.
 */
export interface ProviderApi {
  label: string;
  production: string;
  sandbox?: string;
  /** Why there is no sandbox host, when there is none (said when a document asks for one). */
  noSandbox?: string;
  /** Other origins the provider documents for the same API (an older form of its URLs). */
  alsoOfficial?: readonly string[];
  /**
   * The institution that takes the payments made through this provider (the NF-e's payment
   * group's CNPJ), where it is one institution whatever the account (a bank's is its profile's).
   */
  institution?: Institution;
}

export type ApiEnvironment = 'production' | 'sandbox';
