/**
 * Every Redis key of the connector, in one place (layout 2; layout 1 is moved by `connector
 * migrate`, src/store/layout-migration.ts). Each key carries a hash tag (the part in braces, which
 * alone decides its Cluster slot) that begins with QUEUE_PREFIX:
 *
 *   {P:shop:<scope>}:...    a shop's checkouts, its provider's own keys and sync ledger (scope:
 *                           its id, `.<incarnation>` after it since incarnations), and under the
 *                           id alone its breaker: every script and MULTI touches one shop's keys
 *   {P:queue:<queue>}:<queue>:...   BullMQ's keys of one queue (its prefix is the tag)
 *   {P:rl}:<limit>:<client> the rate limiters' counters
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

/** A provider checkout, kept for a provider without idempotency keys (payments/created-checkouts.ts). */
export function createdCheckoutKey(
  prefix: string,
  shop: string,
  provider: string,
  checkoutId: string,
): string {
  return `${shopTag(prefix, shop)}:created:${provider}:${checkoutId}`;
}

export function syncLedgerKey(prefix: string, shop: string): string {
  return `${shopTag(prefix, shop)}:sync-fp`;
}

/** A shop's circuit breaker: under its id whatever its incarnation (its platform account's state). */
export function breakerKey(prefix: string, shop: string): string {
  return `${shopTag(prefix, shop)}:breaker`;
}

/**
 * The shop registry, under one tag: `shops` (hash: id -> the stored shop), `version` (bumped by
 * every change), `audit:<id>` (list), `removals` (list: who removed which shop when).
 */
export function registryKeys(prefix: string) {
  const tag = `{${prefix}:registry}`;
  return {
    shops: `${tag}:shops`,
    version: `${tag}:version`,
    audit: (shop: string) => `${tag}:audit:${shop}`,
    removals: `${tag}:removals`,
  };
}

/**
 * The connect links (by their token's hash), the connections under way (by their `state`'s
 * hash), the accounts those made at a provider (by the account id's hash: no account id in a key
 * name) and each link's refusals: single keys, each command touching one. Earlier releases' raw
 * states and account ids are moved or dropped by `connector migrate` (store/connect-migration.ts);
 * their renewal locks (`renew-lock:<shop>`) lapse within 60 s.
 */
export function connectKeys(prefix: string) {
  const tag = `{${prefix}:connect}`;
  return {
    tag,
    link: (hash: string) => `${tag}:link:${hash}`,
    state: (hash: string) => `${tag}:state:${hash}`,
    linkAccount: (linkKey: string) => `${tag}:link-account:${linkKey}`,
    pendingAccount: (provider: string, accountHash: string) =>
      `${tag}:account:${provider}:${accountHash}`,
    refusals: (linkKey: string) => `${tag}:refusals:${linkKey}`,
  };
}
