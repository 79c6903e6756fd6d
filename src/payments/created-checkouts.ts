import { createdCheckoutKey } from '../redis/keyspace';
import type { RedisCommands } from '../redis/redis';
import type { CreatedCheckout } from './payment-provider';

/**
 * The provider checkouts made for a shop's checkouts, for an adapter whose provider takes no
 * idempotency key: creating the checkout again (a produce job run twice) finds the one
 * made before instead of making a second. Kept a week past the checkout's expiry.
 */
export interface CreatedCheckouts {
  find(checkoutId: string): Promise<CreatedCheckout | undefined>;
  /** Keeps `created` unless one was kept first; resolves with the one kept. */
  keep(checkoutId: string, created: CreatedCheckout, expiresAt: Date): Promise<CreatedCheckout>;
}

const KEPT_PAST_EXPIRY_MS = 7 * 24 * 3_600_000;

export function redisCreatedCheckouts(
  redis: RedisCommands,
  prefix: string,
  shop: string,
  provider: string,
): CreatedCheckouts {
  const key = (checkoutId: string) => createdCheckoutKey(prefix, shop, provider, checkoutId);
  const read = (text: string | null): CreatedCheckout | undefined => {
    if (!text) return undefined;
    const { providerRef, url } = JSON.parse(text) as Partial<CreatedCheckout>;
    return typeof providerRef === 'string' && typeof url === 'string'
      ? { providerRef, url }
      : undefined;
  };
  return {
    find: async (checkoutId) => read(await redis.get(key(checkoutId))),
    keep: async (checkoutId, created, expiresAt) => {
      const ttlMs = Math.max(0, expiresAt.getTime() - Date.now()) + KEPT_PAST_EXPIRY_MS;
      const set = await redis.set(key(checkoutId), JSON.stringify(created), 'PX', ttlMs, 'NX');
      if (set === 'OK') return created;
      return read(await redis.get(key(checkoutId))) ?? created;
    },
  };
}
