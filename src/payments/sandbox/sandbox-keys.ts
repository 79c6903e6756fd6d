import { shopTag } from '../../redis/keyspace';

/** A sandbox payment of one shop, under the shop's tag (purged with the shop's data). */
export function sandboxKey(prefix: string, shop: string, checkoutId: string): string {
  return `${shopTag(prefix, shop)}:sandbox:${checkoutId}`;
}
