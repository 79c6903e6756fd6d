import type { Config } from '../config';
import { shopDocumentFromEnv } from '../shop-registry/shop-document';
import { settingsOf, type ShopSettings } from '../shop-registry/shop-settings';
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
