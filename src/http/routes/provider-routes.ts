import type { Router } from 'express';
import { allowOnly } from '../allow-only';
import { exactRouter } from '../exact-routes';
import { isOpen, type CheckoutRecord } from '../../checkout/checkout-record';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { syncCheckout } from '../../checkout/settle-checkout';
import type { ShopDirectory } from '../../checkout/shop-directory';
import type { PageState } from '../../payments/provider-pages';
import type { ProviderModule } from '../../payments/provider-module';
import { PROVIDER_LIST } from '../../payments/providers';
import type { ShopSettings } from '../../shop-registry/shop-settings';

/** A shop as the providers' own pages see it: its checkouts, and its provider's module. */
export interface ProviderShop {
  deps: CheckoutDeps;
  providerModule: Pick<ProviderModule, 'pages' | 'pageNotice'>;
  settings: Pick<ShopSettings, 'storefront'>;
}

/**
 * The providers' own pages (each descriptor's `pages`: the sandbox's payment page,
 * `/sandbox/checkout/<checkout id>`, and the API Pix's, `/pix/<checkout id>`), served for every
 * shop. The checkout id names the shop, and only that shop's own provider's pages find it
 * (another provider's shop has no such page: 404).
 */
export function providerRoutes(
  shops: Pick<ShopDirectory<ProviderShop>, 'byCheckout'>,
  /** The notice of a page no shop answers (an unknown id): the deployment's, if it has one. */
  defaultNotice: string | undefined,
): Router {
  const router = exactRouter();
  for (const provider of PROVIDER_LIST) {
    if (!provider.pages) continue;
    const find = async (checkoutId: string) => {
      const shop = await shops.byCheckout(checkoutId);
      if (!shop || shop.deps.provider.name !== provider.name) return undefined;
      const { deps, providerModule } = shop;
      return {
        own: providerModule.pages,
        stateOf: async (id: string) => pageStateOf(await deps.store.get(id)),
        hint: (id: string) => syncCheckout(deps, id),
        pageNotice: providerModule.pageNotice,
        storefront: shop.settings.storefront,
      };
    };
    for (const route of provider.pages.routes(find, defaultNotice)) {
      const chain = router.route(route.path);
      if (route.get) chain.get(route.get);
      if (route.post) chain.post(route.post);
      chain.all(
        allowOnly(...(route.get ? ['GET' as const] : []), ...(route.post ? ['POST' as const] : [])),
      );
    }
  }
  return router;
}

/** A checkout as a provider's page shows it: payable, paid, or no longer payable. */
function pageStateOf(record: CheckoutRecord | undefined): PageState | undefined {
  if (!record) return undefined;
  if (isOpen(record.state)) return 'open';
  return (record.outcome ?? record.state) === 'paid' ? 'paid' : 'closed';
}
