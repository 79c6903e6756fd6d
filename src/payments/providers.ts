import { asaasProvider } from './asaas/asaas-descriptor';
import type {
  CommonSettings,
  DocumentOf,
  ProviderDescriptor,
  ProviderEnvironment,
} from './define-provider';
import { mercadoPagoProvider } from './mercadopago/mercadopago-descriptor';
import type { ProviderModule } from './provider-module';
import { pixProvider } from './pix/pix-descriptor';
import { sandboxProvider } from './sandbox/sandbox-descriptor';
import { stripeProvider } from './stripe/stripe-descriptor';

/** A record of descriptors, each under its own name. */
type NamedByKey<T> = { [K in keyof T]: { name: K } };

function providerList<T extends NamedByKey<T>>(providers: T): T {
  return providers;
}

/**
 * Every payment provider, by name: the one list. A provider is one descriptor in its own folder
 * (src/payments/<name>/<name>-descriptor.ts) and one line here; its names, document schema,
 * settings, secrets, variables, offer and builder are all derived from this list.
 */
export const PROVIDERS = providerList({
  sandbox: sandboxProvider,
  stripe: stripeProvider,
  mercadopago: mercadoPagoProvider,
  asaas: asaasProvider,
  pix: pixProvider,
});

export type ProviderName = keyof typeof PROVIDERS;

/**
 * The env shop's provider while PAYMENT_PROVIDER is unset, and the demo's: the connector's own
 * simulated one, which needs no outside account.
 */
export const DEFAULT_PROVIDER: ProviderName = 'sandbox';

export const PROVIDER_LIST = Object.values(PROVIDERS);

/** The names, in the list's order: `sandbox, stripe, ...`. */
export const PROVIDER_NAMES: ProviderName[] = PROVIDER_LIST.map((provider) => provider.name);

type Descriptor<K extends ProviderName> = (typeof PROVIDERS)[K];
type SettingsOwn<D> = D extends { settings(...args: never[]): infer R } ? R : never;

export type DocumentMap = {
  [K in ProviderName]: Descriptor<K> extends ProviderDescriptor<K, infer F, infer _S, infer C>
    ? DocumentOf<K, F, C>
    : never;
};

/**
 * Each provider's settings. Its own key (`stripe: {...}`) is required; the other providers' keys
 * are absent, so that `settings.stripe` reads as `undefined` on another provider's.
 */
export type SettingsMap = {
  [K in ProviderName]: SettingsOwn<Descriptor<K>> & { [O in Exclude<ProviderName, K>]?: never };
};

/** What iterates the list needs of each provider, by name (its types follow the name). */
type ProviderByName = {
  [K in ProviderName]: {
    settings(document: DocumentMap[K], common: CommonSettings): SettingsOwn<Descriptor<K>>;
    build(settings: SettingsMap[K], environment: ProviderEnvironment): ProviderModule;
  };
};

const BY_NAME: ProviderByName = PROVIDERS;

/** The settings of a provider's document (the name types the document and its settings alike). */
export function settingsFor<K extends ProviderName>(
  name: K,
  document: DocumentMap[K],
  common: CommonSettings,
): SettingsOwn<Descriptor<K>> {
  return BY_NAME[name].settings(document, common);
}

/** The adapter a provider's settings build (the name types the settings). */
export function buildFor<K extends ProviderName>(
  name: K,
  settings: SettingsMap[K],
  environment: ProviderEnvironment,
): ProviderModule {
  return BY_NAME[name].build(settings, environment);
}
