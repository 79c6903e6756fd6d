import type { RedisCommands } from '../redis/redis';
import { checkoutKeys } from './checkout-keys';
import { RedisCheckoutStore } from './redis-checkout-store';
import { RedisReconcileLine } from './redis-reconcile-line';
import { RedisWebhookEvents } from './redis-webhook-events';

/** One shop's checkout ports on Redis, on the same keys (`scope`: keyspace.ts `shopScope`). */
export function redisCheckoutPorts(
  redis: RedisCommands,
  prefix: string,
  shop: string,
  scope: string = shop,
  options: { retentionMs?: number } = {},
) {
  const keys = checkoutKeys(prefix, scope);
  return {
    store: new RedisCheckoutStore(redis, prefix, shop, { scope, ...options }),
    line: new RedisReconcileLine(redis, keys),
    webhookEvents: new RedisWebhookEvents(redis, keys),
  };
}
