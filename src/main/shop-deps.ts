import type { Config } from '../config';
import { shopDocumentFromEnv } from '../shop-registry/shop-document';
import { settingsOf, type ShopSettings, type ShopSource } from '../shop-registry/shop-settings';
import { secretMatcher } from '../secrets/token-match';

/**
 * The env shop: PLATFORM_EMAIL and the rest of the environment made a shop's document, then served
 * as a registry shop's is (`settingsOf`).
 */
export function envShopSettings(config: Config): ShopSettings | undefined {
  const { envShop } = config;
  if (!envShop) return undefined;
  const matches = secretMatcher(envShop.routeToken);
  return settingsOf(shopDocumentFromEnv(envShop), {
    incarnation: '',
    enabled: true,
    tokenMatches: (token) => matches(token),
    sandboxInProduction: config.checkout.sandboxInProduction,
  });
}

/**
 * The env shop beside the registry's shops, as one source: the registry knows nothing of it, and
 * it is answered from memory (its settings change only with the process's environment).
 */
export function withEnvShop(registry: ShopSource, envShop: ShopSettings | undefined): ShopSource {
  if (!envShop) return registry;
  const served = { settings: envShop, stored: envShop.incarnation };
  return {
    get: (id) => (id === envShop.id ? envShop : registry.get(id)),
    ids: () => [envShop.id, ...registry.ids()],
    fresh: (id) => (id === envShop.id ? Promise.resolve(served) : registry.fresh(id)),
  };
}
