import { Router } from 'express';
import { exactRouter } from '../exact-routes';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { isCheckoutId } from '../../checkout/checkout-record';
import type { ShopDirectory } from '../../checkout/shop-directory';
import { inCheckoutTrace } from '../../checkout/checkout-deps';
import { syncFromProvider } from '../../checkout/settle-checkout';
import { notFoundPage } from '../../html/page-layout';
import { allowOnly } from '../allow-only';
import type { ProviderModule } from '../../payments/provider-module';
import type { ShopSettings } from '../../shop-registry/shop-settings';
import { returnPage } from '../pages/checkout-pages';

/** A shop as its customer pages see it: its checkouts, its provider's notice, its storefront. */
export interface PageShop {
  deps: CheckoutDeps;
  providerModule: Pick<ProviderModule, 'pageNotice'>;
  settings: Pick<ShopSettings, 'storefront'>;
}

/** Where the provider sends the customer back, for any provider: a page saying what happened. */
export function returnRoutes(
  shops: Pick<ShopDirectory<PageShop>, 'byCheckout'>,
  /** The notice of a page no shop answers (an unknown id): the deployment's, if it has one. */
  defaultNotice?: string,
): Router {
  const router = exactRouter();
  router
    .route('/return/:provider')
    .get(async (req, res) => {
      const checkoutId = typeof req.query.checkout_id === 'string' ? req.query.checkout_id : '';
      // The checkout id names its shop: the page reads that shop's record, with its provider.
      const shop = isCheckoutId(checkoutId) ? await shops.byCheckout(checkoutId) : undefined;
      const record = shop ? await shop.deps.store.get(checkoutId) : undefined;
      const pageNotice = shop ? shop.providerModule.pageNotice : defaultNotice;
      if (!shop || !record || record.provider !== req.params.provider) {
        res.status(404).type('html').send(notFoundPage(pageNotice));
        return;
      }
      // The redirect is a hint, like a webhook: ask the provider before showing the page.
      const current = await inCheckoutTrace(shop.deps, record, 'checkout return', () =>
        syncFromProvider(shop.deps, record),
      );
      // A part of a plan: back to its page, which shows what is paid and what is left.
      if (current.parent) {
        res.redirect(303, `/pay/${encodeURIComponent(current.parent)}`);
        return;
      }
      const cancelled = req.query.cancelled === '1';
      res.type('html').send(
        returnPage(current, {
          notice: pageNotice,
          cancelled,
          storefront: shop.settings.storefront,
        }),
      );
    })
    .all(allowOnly('GET'));
  return router;
}
