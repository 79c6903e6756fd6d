import { envShopSettings } from '../../src/main/shop-deps';
import { buildProviderModule, type ProviderEnvironment } from '../../src/payments/build-provider';
import type { ProviderDocument } from '../../src/payments/provider-fields';
import type { ProviderModule } from '../../src/payments/provider-module';
import type { ProviderName } from '../../src/payments/providers';
import { configOf } from './harness';
import { asaasRow } from './providers/asaas';
import { mercadoPagoRow } from './providers/mercadopago';
import { pixRow } from './providers/pix';
import { sandboxRow } from './providers/sandbox';
import { stripeRow } from './providers/stripe';
import type { TestProvider } from './providers/test-provider';

export type {
  ContractDriver,
  FlowDriver,
  Forgery,
  ReturnPages,
  TestProvider,
} from './providers/test-provider';

/**
 * Every provider, as the tests know it: what src/payments/providers.ts is to the code. A provider
 * is one row in test/support/providers/<name>.ts (its fake, the hand of a test at it, the
 * variables that aim a shop at it) and one line here, in the code's order; the type asks a row of
 * every name, and test/unit/payments/test-registry.test.ts holds the list to the code's. The flow
 * scenarios, the provider contract, the property test, the incidents, the payment records, the
 * return pages and README's list of providers iterate it.
 */
export const TEST_PROVIDERS: { readonly [K in ProviderName]: TestProvider } = {
  sandbox: sandboxRow,
  stripe: stripeRow,
  mercadopago: mercadoPagoRow,
  asaas: asaasRow,
  pix: pixRow,
};

/** The rows, in the list's order. */
export const TEST_PROVIDER_LIST: readonly TestProvider[] = Object.values(TEST_PROVIDERS);

/** What every deployment sets besides its provider: the platform and the checkout route. */
const PLATFORM_ENV = {
  PLATFORM_BASE_URL: 'http://127.0.0.1:9/',
  PLATFORM_EMAIL: 'erp@example.com',
  PLATFORM_PASSWORD: 'pw-123456',
  PLATFORM_API_KEY: 'key-abcdef',
  CHECKOUT_ROUTE_TOKEN: 'a-token-of-16-chars-or-more',
};

/**
 * The env shop's provider settings that `env` (a row's, at its started fake) stands for, read by
 * the connector's own config (files read, hosts checked), whatever `.env` the folder holds.
 */
function envShopOf(env: Record<string, string>) {
  const config = configOf({ ...PLATFORM_ENV, ...env });
  const settings = envShopSettings(config);
  if (!settings) throw new Error('no env shop');
  return { document: config.envShop?.providerDocument, settings: settings.provider };
}

/** The provider document `env` stands for: a registry shop's `provider` at the same account. */
export function providerDocumentOf(env: Record<string, string>): ProviderDocument {
  const { document } = envShopOf(env);
  if (!document) throw new Error('no provider document');
  return document;
}

/** The provider module the connector builds for a shop of `env`, as its composition does. */
export function providerModuleOf(
  env: Record<string, string>,
  environment: ProviderEnvironment,
): ProviderModule {
  return buildProviderModule(envShopOf(env).settings, environment);
}
