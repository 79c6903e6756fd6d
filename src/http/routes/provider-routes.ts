import type { Router } from 'express';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { syncCheckout } from '../../checkout/settle-checkout';
import type { ShopDirectory } from '../../checkout/shop-directory';
import type { ProviderModule } from '../../payments/provider-module';
import type { ShopSettings } from '../../shop-registry/shop-settings';
import { sandboxRoutes } from '../../payments/sandbox/sandbox-routes';

/** A shop as the providers' own pages see it: its checkouts, and its provider's sandbox. */
export interface ProviderShop {
  deps: CheckoutDeps;
  providerModule: Pick<ProviderModule, 'sandbox' | 'pageNotice'>;
  settings: Pick<ShopSettings, 'storefront'>;
}

/**
 * The sandbox's payment page, `/sandbox/checkout/<checkout id>`, served for every shop: the
 * checkout id names the shop, and that shop's own sandbox answers (a shop whose provider is not
 * the sandbox has no such page: 404).
 */
export function providerRoutes(
  shops: Pick<ShopDirectory<ProviderShop>, 'byCheckout'>,
  /** The notice of a page no shop answers (an unknown id): the deployment's, if it has one. */
  defaultNotice: string | undefined,
): Router {
  return sandboxRoutes(async (checkoutId) => {
    const shop = await shops.byCheckout(checkoutId);
    const sandbox = shop?.providerModule.sandbox;
    if (!shop || !sandbox) return undefined;
    const { deps } = shop;
    return {
      sandbox,
      hooks: { hint: (id: string) => syncCheckout(deps, id) },
      pageNotice: shop.providerModule.pageNotice,
      storefront: shop.settings.storefront,
    };
  }, defaultNotice);
}
