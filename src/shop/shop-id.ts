/**
 * Shop ids: 2 to 63 characters, lowercase letters, digits and hyphens, not starting with a
 * hyphen (CONTRACT "Shops"). They go into URLs, Redis hash tags, checkout ids and job ids as they
 * are, so nothing else may be allowed in.
 */
export const SHOP_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** The shop the environment variables define (PLATFORM_EMAIL and the rest): served as before. */
export const ENV_SHOP_ID = 'default';

export function isShopId(value: unknown): value is string {
  return typeof value === 'string' && SHOP_ID_PATTERN.test(value);
}

/** The Express pattern of a registry shop's checkout route (the env shop's is CHECKOUT_ROUTE_PATH). */
export const SHOP_CHECKOUT_ROUTE = '/shops/:shop/checkout';

/** The checkout route the platform calls for a registry shop. */
export function checkoutRoutePath(shop: string): string {
  return SHOP_CHECKOUT_ROUTE.replace(':shop', shop);
}

/** The path a provider's webhooks reach for `shop`: the env shop keeps the path it had. */
export function webhookPath(provider: string, shop: string): string {
  return shop === ENV_SHOP_ID ? `/webhooks/${provider}` : `/webhooks/${provider}/${shop}`;
}

/**
 * The scope of one incarnation of a shop's data: its id, and for a shop added since incarnations
 * exist, `.<incarnation>` after it. A shop removed and added again under the same id gets a new
 * incarnation, so nothing its predecessor left (checkouts, sandbox payments, ledger, breaker) is
 * under its keys, whether the purge of the old ones has finished or not. The env shop, and shops
 * stored by the release before incarnations, have none: their keys are as they were.
 */
export function shopScope(shop: string, incarnation = ''): string {
  return incarnation === '' ? shop : `${shop}.${incarnation}`;
}
