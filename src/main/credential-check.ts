import type { RedisCommands } from '../redis/redis';
import type { PlatformHostConfig } from '../config';
import { AppError, errorMessage } from '../errors';
import type { VendorAccounts } from '../payments/vendor-accounts';
import type { Logger } from '../infra/logger';
import { isConnected } from '../payments/define-provider';
import { providerSettingsOf, type ProviderSettings } from '../payments/provider-fields';
import type { PaymentProvider } from '../payments/payment-provider';
import { buildProviderModule } from '../payments/build-provider';
import { PlatformClient } from '../platform/platform-client';
import type { CredentialCheck } from '../shop-registry/ports';
import type { ShopDocument } from '../shop-registry/shop-document';

interface CheckRuntime {
  platform: PlatformHostConfig;
  redis: RedisCommands;
  prefix: string;
  publicUrl: string;
  logger: Logger;
  /** The vendor's accounts, which a connected shop's provider is built with. */
  vendor?: VendorAccounts;
}

type Problem = { field: string; problem: string };

/**
 * Adding or changing a shop checks its credentials before storing them: one read of the
 * platform with its account (the first service of GET /services), and the provider's keys
 * where the provider has a harmless read (its adapter's `verifyCredentials`). A refusal
 * (PLATFORM_REJECTED, PROVIDER_REJECTED: a 4xx) is a problem named in the answer; a service that
 * cannot be reached throws (nothing is stored then either, and the caller may try again).
 */
export function platformCredentialCheck(runtime: CheckRuntime): CredentialCheck {
  return {
    async check(document) {
      const problems = await platformProblems(runtime, document);
      return [...problems, ...(await providerProblems(runtime, document))];
    },
    stored: (document) => registerWebhook(runtime, document),
  };
}

async function platformProblems(runtime: CheckRuntime, document: ShopDocument): Promise<Problem[]> {
  const { logger } = runtime;
  const platform = new PlatformClient({ ...runtime.platform, ...document.platform, logger });
  try {
    await platform.listServices({}, { limit: 1, offset: 0 });
    return [];
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'PLATFORM_REJECTED') throw error;
    const problem = `the platform refused the account ${document.platform.email} (HTTP ${error.upstreamStatus ?? '?'})`;
    return [{ field: 'platform', problem }];
  }
}

/** A connected account is tried with the vendor's accounts it is served with. */
async function providerProblems(runtime: CheckRuntime, document: ShopDocument): Promise<Problem[]> {
  let settings;
  try {
    settings = providerSettingsOf(document.provider, true, document.payment, runtime.vendor);
  } catch (error) {
    if (!isConnected(document.provider)) throw error;
    return [{ field: 'provider', problem: errorMessage(error) }];
  }
  const provider = providerOf(runtime, document, settings);
  try {
    await provider.verifyCredentials?.();
    return [];
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'PROVIDER_REJECTED') throw error;
    return [{ field: 'provider', problem: providerRefusal(document.provider, error) }];
  }
}

function providerRefusal(provider: ShopDocument['provider'], error: AppError): string {
  const status = error.upstreamStatus;
  if (isConnected(provider)) {
    return `${provider.name} refused the connected account's credential (HTTP ${status ?? '?'}): connect it again with a new link`;
  }
  return status === undefined
    ? `${provider.name} refused the credentials: ${error.message}`
    : `${provider.name} refused the keys (HTTP ${status})`;
}

/**
 * Registers a stored shop's webhook with its provider, where the provider takes it by API (the
 * API Pix): at once, so the shop's first payment is heard. A failure is logged; the workers'
 * pass (src/main/provider-webhooks.ts) tries again.
 */
async function registerWebhook(runtime: CheckRuntime, document: ShopDocument): Promise<void> {
  try {
    const settings = providerSettingsOf(document.provider, true, document.payment, runtime.vendor);
    const url = await providerOf(runtime, document, settings).registerWebhook?.();
    if (url) runtime.logger.info('webhook registered', { shop: document.id, url });
  } catch (error) {
    runtime.logger.warn('could not register the webhook; the workers will try again', {
      shop: document.id,
      provider: document.provider.name,
      errMessage: errorMessage(error),
    });
  }
}

/**
 * The shop's provider adapter, built to try its credentials or register its webhook: nothing is
 * kept under the shop's keys (its scope is its bare id).
 */
function providerOf(
  runtime: CheckRuntime,
  document: ShopDocument,
  settings: ProviderSettings,
): PaymentProvider {
  return buildProviderModule(settings, {
    redis: runtime.redis,
    prefix: runtime.prefix,
    shop: document.id,
    scope: document.id,
    publicUrl: runtime.publicUrl,
  }).provider;
}
