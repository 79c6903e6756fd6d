import type { RedisCommands } from '../infra/redis';
import { checkoutKeys } from './checkout-keys';
import { RedisCheckoutStore } from './redis-checkout-store';
import { RedisReconcileLine } from './redis-reconcile-line';
import { RedisWebhookEvents } from './redis-webhook-events';

/**
 * One shop's checkout ports on Redis, each on the same keys (src/store/checkout-keys.ts): the
 * records, the reconciler's line, the webhook events already handled. `scope`: the scope of the
 * shop's keys (src/infra/keyspace.ts `shopScope`), its id by default.
 */
export function redisCheckoutPorts(
  redis: RedisCommands,
  prefix: string,
  shop: string,
  scope: string = shop,
  options: { retentionMs?: number } = {},
): { store: RedisCheckoutStore; line: RedisReconcileLine; webhookEvents: RedisWebhookEvents } {
  const keys = checkoutKeys(prefix, scope);
  return {
    store: new RedisCheckoutStore(redis, prefix, shop, { scope, ...options }),
    line: new RedisReconcileLine(redis, keys),
    webhookEvents: new RedisWebhookEvents(redis, keys),
  };
}
