/**
 * Every Redis key of the connector, in one place. Each key carries a hash tag (the part in
 * braces, which alone decides a key's slot on a Redis Cluster) that begins with QUEUE_PREFIX:
 *
 *   {P:shop:<scope>}:...    a shop's checkouts, its provider's own keys (named in the provider's
 *                           folder: the sandbox's payments, the API Pix's charges) and sync ledger (scope: the
 *                           shop's id, `.<incarnation>` after it for a shop added since
 *                           incarnations exist), and under the id alone its breaker:
 *                           every script, MULTI and pipeline of the store touches one shop's
 *                           keys only
 *   {P:queue:<queue>}:<queue>:...   BullMQ's keys of one queue (its prefix is the tag)
 *   {P:rl}:<limit>:<client> the rate limiters' counters
 *
 * So a Cluster spreads shops and queues over its shards, and one tag never mixes two shops.
 * This is layout 2; layout 1 (`P:chk:...`, `P:checkout:...`, no tags, one shop) is moved by
 * `connector migrate` (src/store/layout-migration.ts).
 */

export { shopScope } from '../shop/shop-id';

/** The hash tag of one shop's data; `scope` is its id or `shopScope(id, incarnation)`. */
export function shopTag(prefix: string, scope: string): string {
  return `{${prefix}:shop:${scope}}`;
}

/** The BullMQ prefix of one queue: its keys are `{P:queue:<name>}:<name>:...`. */
export function queuePrefix(prefix: string, queue: string): string {
  return `{${prefix}:queue:${queue}}`;
}

/** Where the rate limiter `name` keeps its counters (rate-limit-redis appends the client). */
export function rateLimitPrefix(prefix: string, name: string): string {
  return `{${prefix}:rl}:${name}:`;
}

/**
 * The provider checkout made for one of a shop's checkouts, kept for a provider without
 * idempotency keys, so that creating it again finds it (src/payments/created-checkouts.ts).
 */
export function createdCheckoutKey(
  prefix: string,
  shop: string,
  provider: string,
  checkoutId: string,
): string {
  return `${shopTag(prefix, shop)}:created:${provider}:${checkoutId}`;
}

/** The ERP sync's ledger of one shop: service id -> fingerprint of what the ERP has. */
export function syncLedgerKey(prefix: string, shop: string): string {
  return `${shopTag(prefix, shop)}:sync-fp`;
}

/**
 * A shop's circuit breaker (src/store/redis-shop-breaker.ts): one hash, under the shop's id
 * whatever its incarnation (the state of its platform account; deleted with the shop).
 */
export function breakerKey(prefix: string, shop: string): string {
  return `${shopTag(prefix, shop)}:breaker`;
}

/**
 * The shop registry (src/store/redis-shop-registry.ts), under one tag of its own:
 * `shops` (hash: id -> the stored shop), `version` (bumped by every change), `audit:<id>` (list),
 * `removals` (list: who removed which shop when, apart from any shop's own trail).
 */
export function registryKeys(prefix: string): {
  shops: string;
  version: string;
  audit(shop: string): string;
  removals: string;
} {
  const tag = `{${prefix}:registry}`;
  return {
    shops: `${tag}:shops`,
    version: `${tag}:version`,
    audit: (shop) => `${tag}:audit:${shop}`,
    removals: `${tag}:removals`,
  };
}

/**
 * The connect links (by their token's hash), the connections under way (by their `state`'s
 * hash), the accounts those made at a provider (by the account id's hash: no account id in a key
 * name), each link's refusals, and each shop's renewal lock: single keys, each command touching
 * one. Layout 2 kept states by their raw value and accounts by their id (`state:account:<id>`,
 * `state:link-account:<link>`): `connector migrate` moves or drops those
 * (src/store/connect-migration.ts).
 */
export function connectKeys(prefix: string): {
  tag: string;
  link(hash: string): string;
  state(hash: string): string;
  linkAccount(linkKey: string): string;
  pendingAccount(provider: string, accountHash: string): string;
  refusals(linkKey: string): string;
  renewLock(shop: string): string;
} {
  const tag = `{${prefix}:connect}`;
  return {
    tag,
    link: (hash) => `${tag}:link:${hash}`,
    state: (hash) => `${tag}:state:${hash}`,
    linkAccount: (linkKey) => `${tag}:link-account:${linkKey}`,
    pendingAccount: (provider, accountHash) => `${tag}:account:${provider}:${accountHash}`,
    refusals: (linkKey) => `${tag}:refusals:${linkKey}`,
    renewLock: (shop) => `${tag}:renew-lock:${shop}`,
  };
}
