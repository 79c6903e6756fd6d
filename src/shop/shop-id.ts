/**
 * Shop ids: 2 to 63 characters, lowercase letters, digits and hyphens, not starting with a
 * hyphen (CONTRACT "Shops"). They go into URLs, Redis hash tags, checkout ids and job ids as they
 * are, so nothing else may be allowed in.
 */
export const SHOP_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** The shop the environment variables define (PLATFORM_EMAIL and the rest): served as before. */
export const ENV_SHOP_ID = 'default';

/*
 * The env shop's names from before many shops, the one table of them. The env shop is a shop
 * like the others (its document, its settings, its deps), but what was named before shops existed
 * keeps its name: a checkout id, a webhook path, a job id with no shop in it; a record, a job or
 * an ERP signature with no shop field. Everything that writes or reads such a name asks here
 * rather than knowing the env shop's id.
 */

/** The shop a name leaves out is the env shop's. */
export function shopOrEnv(shop: string | undefined): string {
  return shop ?? ENV_SHOP_ID;
}

/** The shop as an id, a path or a signature names it: none for the env shop, as before shops. */
export function namedShop(shop: string): string | undefined {
  return shop === ENV_SHOP_ID ? undefined : shop;
}

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
  const named = namedShop(shop);
  return named ? `/webhooks/${provider}/${named}` : `/webhooks/${provider}`;
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
