import type { RedisCommands } from '../infra/redis';
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

/**
 * Adding or changing a shop checks its credentials before storing them: one read of the
 * platform with its account (the first service of GET /services), and the provider's keys
 * where the provider has a harmless read (its adapter's `verifyCredentials`). A refusal
 * (PLATFORM_REJECTED, PROVIDER_REJECTED: a 4xx) is a problem named in the answer; a service that
 * cannot be reached throws (nothing is stored then either, and the caller may try again).
 */
export function platformCredentialCheck(runtime: {
  platform: PlatformHostConfig;
  redis: RedisCommands;
  prefix: string;
  publicUrl: string;
  logger: Logger;
  /** The vendor's accounts, which a connected shop's provider is built with. */
  vendor?: VendorAccounts;
}): CredentialCheck {
  return {
    async check(document) {
      const problems: Array<{ field: string; problem: string }> = [];
      const platform = new PlatformClient({
        ...runtime.platform,
        ...document.platform,
        logger: runtime.logger,
      });
      try {
        await platform.listServices({}, { limit: 1, offset: 0 });
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'PLATFORM_REJECTED') throw error;
        problems.push({
          field: 'platform',
          problem: `the platform refused the account ${document.platform.email} (HTTP ${error.upstreamStatus ?? '?'})`,
        });
      }
      // A connected account is tried with the vendor's accounts it is served with.
      let settings;
      try {
        settings = providerSettingsOf(document.provider, true, document.payment, runtime.vendor);
      } catch (error) {
        if (!isConnected(document.provider)) throw error;
        problems.push({ field: 'provider', problem: errorMessage(error) });
        return problems;
      }
      const provider = providerOf(runtime, document, settings);
      try {
        await provider.verifyCredentials?.();
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'PROVIDER_REJECTED') throw error;
        problems.push({
          field: 'provider',
          problem: isConnected(document.provider)
            ? `${document.provider.name} refused the connected account's credential (HTTP ${error.upstreamStatus ?? '?'}): connect it again with a new link`
            : error.upstreamStatus === undefined
              ? `${document.provider.name} refused the credentials: ${error.message}`
              : `${document.provider.name} refused the keys (HTTP ${error.upstreamStatus})`,
        });
      }
      return problems;
    },
    stored: (document) => registerWebhook(runtime, document),
  };
}

/**
 * Registers a stored shop's webhook with its provider, where the provider takes it by API (the
 * API Pix): at once, so the shop's first payment is heard. A failure is logged; the workers'
 * pass (src/main/provider-webhooks.ts) tries again.
 */
async function registerWebhook(
  runtime: Parameters<typeof platformCredentialCheck>[0],
  document: ShopDocument,
): Promise<void> {
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
  runtime: Parameters<typeof platformCredentialCheck>[0],
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
