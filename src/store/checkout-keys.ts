import { shopTag } from '../redis/keyspace';

/**
 * The one layout of a shop's checkout keys, all under the shop's hash tag `{P:shop:<shop>}`
 * (src/redis/keyspace.ts): a script touches one shop's keys, in one slot of a Cluster. The Lua
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
 *   chk-watch                 zset of checkouts paid by Pix, scored by when the watch next
 *                             reads them (PIX_WATCH_DAYS after the payment: a MED return)
 *   chk-plans                 set of the services whose checkout has a plan (the ERP sync
 *                             adds their payment to what it delivers)
 *   chk-refunding:<id>        a give-back of a part checkout's payment under way (2 minutes)
 *   chk-balance               zset of planned checkouts reported paid on their deposit whose
 *                             balance is not paid yet, scored by when it is due (the gauges)
 */
export function checkoutKeys(prefix: string, shop: string) {
  const tag = shopTag(prefix, shop);
  return {
    record: (checkoutId: string) => `${tag}:chk:${checkoutId}`,
    service: (serviceId: number) => `${tag}:chk-service:${serviceId}`,
    history: (serviceId: number) => `${tag}:chk-history:${serviceId}`,
    ref: (provider: string, providerRef: string) => `${tag}:chk-ref:${provider}:${providerRef}`,
    due: `${tag}:chk-due`,
    event: (provider: string, eventId: string) => `${tag}:chk-event:${provider}:${eventId}`,
    parked: `${tag}:chk-parked`,
    unreadable: `${tag}:chk-unreadable`,
    watch: `${tag}:chk-watch`,
    balances: `${tag}:chk-balance`,
    plans: `${tag}:chk-plans`,
    refunding: (checkoutId: string) => `${tag}:chk-refunding:${checkoutId}`,
  };
}

export type CheckoutKeys = ReturnType<typeof checkoutKeys>;
