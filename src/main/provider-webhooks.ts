import { errorMessage } from '../errors';
import type { Logger } from '../infra/logger';
import type { ShopRuntime } from './shop-runtime-directory';

export interface WebhookShops {
  ids(): readonly string[];
  cached(id: string): Pick<ShopRuntime, 'settings' | 'deps'> | undefined;
}

/**
 * The webhook pass (the `register-webhooks` job: at a worker's start and every minute): registers
 * the connector's webhook with each provider that takes it by API (the API Pix's
 * `PUT /webhook/{chave}`) for the shops this process has not registered in their present
 * settings, those that failed included. Registering is idempotent at the provider, so a pass in
 * another worker doing it again is harmless.
 */
export function webhookPass(
  shops: WebhookShops,
  logger: Pick<Logger, 'info' | 'warn'>,
): () => Promise<void> {
  // The settings each shop's webhook was registered with (a change registers it again).
  const registered = new Map<string, unknown>();
  return async () => {
    const ids = shops.ids();
    // A shop gone is forgotten (with its settings, secrets among them).
    for (const shop of registered.keys()) if (!ids.includes(shop)) registered.delete(shop);
    for (const shop of ids) {
      const runtime = shops.cached(shop);
      const provider = runtime?.deps.provider;
      if (!runtime || !provider?.registerWebhook) continue;
      if (registered.get(shop) === runtime.settings) continue;
      try {
        const url = await provider.registerWebhook();
        registered.set(shop, runtime.settings);
        if (url) logger.info('webhook registered', { shop, provider: provider.name, url });
        else
          logger.info('this provider takes its webhook in its own portal only', {
            shop,
            provider: provider.name,
          });
      } catch (error) {
        logger.warn('could not register the webhook; the next pass tries again', {
          shop,
          provider: provider.name,
          errMessage: errorMessage(error),
        });
      }
    }
  };
}
