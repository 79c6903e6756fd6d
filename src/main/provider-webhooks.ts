import { errorMessage } from '../errors';
import type { Logger } from '../infra/logger';
import type { ShopRuntime } from './shop-runtime-directory';

/** How often a worker looks for shops whose webhook it has not registered yet. */
export const WEBHOOK_CHECK_MS = 60_000;

/** What the keeper needs of the directory: every shop's id, and its collaborators as cached. */
export interface WebhookShops {
  ids(): readonly string[];
  cached(id: string): Pick<ShopRuntime, 'settings' | 'deps'> | undefined;
}

/**
 * Registers the connector's webhook with each provider that takes it by API (the API Pix's
 * `PUT /webhook/{chave}`), at start and for each shop added or changed since: every minute, a
 * worker registers the shops it has not registered in their present settings, and tries again
 * those that failed. Registering is idempotent at the provider, so every worker doing it is
 * harmless. Answers the stop of its timer.
 */
export function keepWebhooksRegistered(
  shops: WebhookShops,
  logger: Pick<Logger, 'info' | 'warn'>,
): { stop(): void; pass(): Promise<void> } {
  // The settings each shop's webhook was registered with (a change registers it again).
  const registered = new Map<string, unknown>();
  let running: Promise<void> | undefined;
  const registerAll = async (): Promise<void> => {
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
  const pass = (): Promise<void> => {
    running ??= registerAll().finally(() => {
      running = undefined;
    });
    return running;
  };
  void pass();
  const timer = setInterval(() => void pass(), WEBHOOK_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), pass };
}
