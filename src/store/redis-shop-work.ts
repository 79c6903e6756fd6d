import type { Redis } from 'ioredis';
import { shopTag } from '../infra/keyspace';
import type { ShopWork } from '../registry/ports';
import { checkoutKeys } from './checkout-keys';

/** A shop's open work, and the removal of its data, for `shops remove`. */
export class RedisShopWork implements ShopWork {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async openWork(shop: string): Promise<{ unreported: number; failed: number }> {
    const keys = checkoutKeys(this.prefix, shop);
    const [unreported, failed] = await Promise.all([
      this.redis.zcard(keys.due),
      this.redis.zcard(keys.parked),
    ]);
    return { unreported, failed };
  }

  /** Every key under the shop's tag, in batches (one slot: a Cluster finds them on one node). */
  async purge(shop: string): Promise<void> {
    const match = `${escapeGlob(shopTag(this.prefix, shop))}:*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await this.redis.unlink(...keys);
    } while (cursor !== '0');
  }
}

/** A literal for SCAN's MATCH: the tag's braces are plain, but `[`, `*`, `?` and `\` are not. */
function escapeGlob(text: string): string {
  return text.replace(/[[\]*?\\]/g, '\\$&');
}
