/**
 * The one layout of the checkout store's keys, all under the QUEUE_PREFIX (never
 * `<prefix>:<queue name>:...`, which is BullMQ's). The Lua scripts get these keys, or the
 * record key's prefix, as arguments and build nothing of their own.
 *
 *   chk:<id>                  hash, the record
 *   chk-service:<serviceId>   the id of the service's latest checkout
 *   chk-history:<serviceId>   zset of every checkout of the service, scored by creation time
 *   chk-ref:<provider>:<ref>  the id of the checkout a provider reference belongs to
 *   chk-due                   zset of checkouts not yet reported, scored by when the
 *                             reconciler should next look at them: its line
 *   chk-parked                zset of checkouts whose notification failed for good, scored by
 *                             when: the failed set and the dashboard own them
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
  event(provider: string, eventId: string): string;
}

export function checkoutKeys(prefix: string): CheckoutKeys {
  const recordPrefix = `${prefix}:chk:`;
  return {
    recordPrefix,
    record: (checkoutId) => `${recordPrefix}${checkoutId}`,
    service: (serviceId) => `${prefix}:chk-service:${serviceId}`,
    history: (serviceId) => `${prefix}:chk-history:${serviceId}`,
    ref: (provider, providerRef) => `${prefix}:chk-ref:${provider}:${providerRef}`,
    due: `${prefix}:chk-due`,
    event: (provider, eventId) => `${prefix}:chk-event:${provider}:${eventId}`,
    parked: `${prefix}:chk-parked`,
  };
}
