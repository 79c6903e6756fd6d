import type { ProviderEnvironment } from './define-provider';
import type { ProviderModule } from './provider-module';
import type { ProviderSettings } from './provider-fields';
import { PROVIDERS, type ProviderByName, type ProviderName, type SettingsMap } from './providers';

export type { ProviderSettings } from './provider-fields';
export type { ProviderEnvironment } from './define-provider';

const BY_NAME: ProviderByName = PROVIDERS;

function buildFor<K extends ProviderName>(
  name: K,
  settings: SettingsMap[K],
  environment: ProviderEnvironment,
): ProviderModule {
  return BY_NAME[name].build(settings, environment);
}

/** Builds the provider a shop's settings name, by its descriptor (src/payments/providers.ts). */
export function buildProviderModule(
  settings: ProviderSettings,
  environment: ProviderEnvironment,
): ProviderModule {
  return buildFor(settings.name, settings, environment);
}
