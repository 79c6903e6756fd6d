/**
 * Shop ids: 2 to 63 characters, lowercase letters, digits and hyphens, not starting with a
 * hyphen (CONTRACT "Shops"). They go into URLs, Redis hash tags, checkout ids and job ids as they
 * are, so nothing else may be allowed in.
 */
export const SHOP_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** The shop the environment variables define (PLATFORM_EMAIL and the rest): served as before. */
export const ENV_SHOP_ID = 'default';

/*
 * The env shop's names from before many shops, the one table of them: what was named before shops
 * existed keeps its name (a checkout id, a webhook path, a job id with no shop in it; a record or
 * an ERP signature with no shop field), and what writes or reads such a name asks here.
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

export function checkoutRoutePath(shop: string): string {
  return SHOP_CHECKOUT_ROUTE.replace(':shop', shop);
}

/** The path a provider's webhooks reach for `shop`: the env shop keeps the path it had. */
export function webhookPath(provider: string, shop: string): string {
  const named = namedShop(shop);
  return named ? `/webhooks/${provider}/${named}` : `/webhooks/${provider}`;
}

/**
 * The scope of one incarnation of a shop's data: its id, `.<incarnation>` after it for a shop
 * added since incarnations (none for the env shop). A shop added again under an id sees nothing
 * its predecessor left, whether the purge of the old keys has finished or not.
 */
export function shopScope(shop: string, incarnation = ''): string {
  return incarnation === '' ? shop : `${shop}.${incarnation}`;
}
