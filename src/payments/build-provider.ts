import type { ProviderEnvironment } from './define-provider';
import type { ProviderModule } from './provider-module';
import type { ProviderSettings } from './provider-fields';
import { buildFor, PROVIDER_LIST } from './providers';

export type { ProviderEnvironment } from './define-provider';

export function buildProviderModule(
  settings: ProviderSettings,
  environment: ProviderEnvironment,
): ProviderModule {
  return buildFor(settings.name, settings, environment);
}

/**
 * What a deployment that lets the sandbox run in production (NODE_ENV=production and
 * SANDBOX_IN_PRODUCTION=true) says, whichever shops use it: a warning at start, and the banner
 * of a customer page no shop answers (an unknown checkout id).
 */
export function deploymentNotices(sandboxInProduction: boolean): {
  startWarnings: string[];
  pageNotice: string | undefined;
} {
  const simulated = PROVIDER_LIST.flatMap((provider) =>
    provider.simulated ? [provider.simulated] : [],
  );
  if (!sandboxInProduction) return { startWarnings: [], pageNotice: undefined };
  return {
    startWarnings: simulated.map((said) => said.inProduction),
    pageNotice: simulated[0]?.pageNotice,
  };
}
