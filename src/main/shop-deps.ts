import type { Config } from '../config';
import type { ShopSettings } from '../shop-registry/shop-settings';
import { secretMatcher } from '../secrets/token-match';
import { ENV_SHOP_ID } from '../shop/shop-id';

/** The env shop: PLATFORM_EMAIL and the rest of the environment, served as before many shops. */
export function envShopSettings(config: Config): ShopSettings | undefined {
  const { envShop } = config;
  if (!envShop) return undefined;
  const matches = secretMatcher(envShop.routeToken);
  return {
    id: ENV_SHOP_ID,
    name: ENV_SHOP_ID,
    incarnation: '',
    enabled: true,
    platform: envShop.platform,
    provider: envShop.provider,
    tokenMatches: (token) => matches(token),
  };
}
