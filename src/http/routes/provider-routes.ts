import { Router } from 'express';
import { isOpen, type CheckoutRecord } from '../../checkout/checkout-record';
import { pixRoutes, type PixPageState } from '../../payments/pix/pix-routes';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { syncCheckout } from '../../checkout/settle-checkout';
import type { ShopDirectory } from '../../checkout/shop-directory';
import type { ProviderModule } from '../../payments/provider-module';
import type { ShopSettings } from '../../shop-registry/shop-settings';
import { sandboxRoutes } from '../../payments/sandbox/sandbox-routes';

/** A shop as the providers' own pages see it: its checkouts, and its provider's sandbox or Pix. */
export interface ProviderShop {
  deps: CheckoutDeps;
  providerModule: Pick<ProviderModule, 'sandbox' | 'pix' | 'pageNotice'>;
  settings: Pick<ShopSettings, 'storefront'>;
}

/**
 * The providers' own pages, served for every shop: the sandbox's payment page,
 * `/sandbox/checkout/<checkout id>`, and the API Pix's, `/pix/<checkout id>`. The checkout id
 * names the shop, and that shop's own provider answers (another provider's shop has no such
 * page: 404).
 */
export function providerRoutes(
  shops: Pick<ShopDirectory<ProviderShop>, 'byCheckout'>,
  /** The notice of a page no shop answers (an unknown id): the deployment's, if it has one. */
  defaultNotice: string | undefined,
): Router {
  const router = Router();
  router.use(sandboxPages(shops, defaultNotice));
  router.use(
    pixRoutes(async (checkoutId) => {
      const shop = await shops.byCheckout(checkoutId);
      const pix = shop?.providerModule.pix;
      if (!shop || !pix) return undefined;
      const { deps } = shop;
      return {
        charges: pix.charges,
        stateOf: async (id) => pageStateOf(await deps.store.get(id)),
        hint: (id) => syncCheckout(deps, id),
        pageNotice: shop.providerModule.pageNotice,
        storefront: shop.settings.storefront,
      };
    }, defaultNotice),
  );
  return router;
}

/** A checkout as the Pix page shows it: payable, paid, or no longer payable. */
function pageStateOf(record: CheckoutRecord | undefined): PixPageState | undefined {
  if (!record) return undefined;
  if (isOpen(record.state)) return 'open';
  return (record.outcome ?? record.state) === 'paid' ? 'paid' : 'closed';
}

function sandboxPages(
  shops: Pick<ShopDirectory<ProviderShop>, 'byCheckout'>,
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
