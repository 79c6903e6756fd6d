import { shopTag } from '../infra/keyspace';

/**
 * The one layout of a shop's checkout keys, all under the shop's hash tag `{P:shop:<shop>}`
 * (src/infra/keyspace.ts): a script touches one shop's keys, in one slot of a Cluster. The Lua
 * scripts get these keys as arguments and build none of their own.
 *
 *   chk:<id>                  hash, the record
 *   chk-service:<serviceId>   the id of the service's latest checkout
 *   chk-history:<serviceId>   zset of every checkout of the service, scored by creation time
 *   chk-ref:<provider>:<ref>  the id of the checkout a provider reference belongs to
 *   chk-due                   zset of checkouts not yet reported, scored by when the
 *                             reconciler should next look at them: its line
 *   chk-parked                zset of checkouts whose notification failed for good, scored by
 *                             when: the failed set and the dashboard own them
 *   chk-unreadable            zset of checkouts whose record does not read as a checkout (data
 *                             of an older bug), scored by when the reconciler took them out of
 *                             its line: `checkout status --unreadable` shows them
 *   chk-event:<provider>:<id> a provider's webhook event already handled (7 days)
 */
export interface CheckoutKeys {
  /** `record(id)` is `recordPrefix + id`. */
  recordPrefix: string;
  record(checkoutId: string): string;
  service(serviceId: number): string;
  history(serviceId: number): string;
  ref(provider: string, providerRef: string): string;
  due: string;
  parked: string;
  unreadable: string;
  event(provider: string, eventId: string): string;
}

export function checkoutKeys(prefix: string, shop: string): CheckoutKeys {
  const tag = shopTag(prefix, shop);
  const recordPrefix = `${tag}:chk:`;
  return {
    recordPrefix,
    record: (checkoutId) => `${recordPrefix}${checkoutId}`,
    service: (serviceId) => `${tag}:chk-service:${serviceId}`,
    history: (serviceId) => `${tag}:chk-history:${serviceId}`,
    ref: (provider, providerRef) => `${tag}:chk-ref:${provider}:${providerRef}`,
    due: `${tag}:chk-due`,
    event: (provider, eventId) => `${tag}:chk-event:${provider}:${eventId}`,
    parked: `${tag}:chk-parked`,
    unreadable: `${tag}:chk-unreadable`,
  };
}
