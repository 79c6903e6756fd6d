import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { ShopDirectory, ShopIdentity } from '../checkout/shop-directory';
import { AppError } from '../errors';
import { namedShop, SHOP_ID_PATTERN, shopOrEnv } from '../shop/shop-id';

export interface CheckoutShop {
  deps: CheckoutDeps;
  settings: Pick<ShopIdentity, 'enabled' | 'tokenMatches' | 'needsReconnect'>;
}

const SHOP_ROUTE = new RegExp(`^/shops/(${SHOP_ID_PATTERN.source.slice(1, -1)})/checkout$`);

/**
 * What the entry asks of the shop directory: the shop as this process last saw it (`cached`, for
 * the rate limiter and the front door's choice, never for an answer), and as it is stored now
 * (`byId`, one read: a change made by any process is honoured at once).
 */
export type CheckoutShops = Pick<ShopDirectory<CheckoutShop>, 'cached' | 'byId'>;

/**
 * The one place that says which shop a checkout call is for and whether its token opens it:
 * the front door and the Express route both ask it. The env shop's route is
 * CHECKOUT_ROUTE_PATH; a registry shop's is `/shops/<shop>/checkout`. An unknown shop and a
 * wrong token are the same 401, so the route says nothing of which shops exist.
 */
export class CheckoutEntry {
  constructor(
    private readonly shops: CheckoutShops,
    /** CHECKOUT_ROUTE_PATH when there is an env shop. */
    readonly envPath: string | undefined,
  ) {}

  /** The shop a path (without its query) is the checkout route of; undefined for none. */
  shopOfPath(path: string): string | undefined {
    // The env shop's route is CHECKOUT_ROUTE_PATH, not `/shops/default/checkout`.
    if (path === this.envPath) return shopOrEnv(undefined);
    const shop = SHOP_ROUTE.exec(path)?.[1];
    return shop === undefined ? undefined : namedShop(shop);
  }

  /**
   * The settings `token` opens the shop's route with, as this process last saw the shop; none for
   * a wrong token or a disabled shop. For the rate limiter (the platform never counts) and the
   * front door's choice of taking a call; the answer comes from `open`, on the shop as stored now.
   */
  opens(shop: string | undefined, token: string | undefined): CheckoutShop['settings'] | undefined {
    if (shop === undefined || token === undefined) return undefined;
    const found = this.shops.cached(shop);
    const opened = found?.settings.enabled === true && found.settings.tokenMatches(token);
    return opened ? found.settings : undefined;
  }

  /**
   * The shop's collaborators once the token opens its route; else UNAUTHORIZED or SHOP_DISABLED.
   * `matched`: the settings `opens` found this token opens; when the shop as stored now
   * is still that object (the same stored text), its token is not matched a second time.
   */
  async open(
    shop: string | undefined,
    token: string | undefined,
    matched?: CheckoutShop['settings'],
  ): Promise<CheckoutDeps> {
    if (token === undefined) {
      throw new AppError(
        'UNAUTHORIZED',
        'A token is required: Authorization: Bearer, X-Api-Key or ?token=.',
      );
    }
    const found = shop === undefined ? undefined : await this.shops.byId(shop);
    if (!found || (found.settings !== matched && !found.settings.tokenMatches(token)))
      throw new AppError('UNAUTHORIZED', 'The token is not valid.');
    if (!found.settings.enabled) {
      throw new AppError('SHOP_DISABLED', `Shop ${shop} is disabled: it takes no new checkout.`);
    }
    if (found.settings.needsReconnect) {
      // At once: a checkout started now would fail at the provider later.
      throw new AppError(
        'SHOP_NEEDS_RECONNECT',
        `Shop ${shop}'s payment account must be connected again; no checkout is started.`,
      );
    }
    return found.deps;
  }
}
