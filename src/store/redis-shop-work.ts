import { scanPrimaries, type RedisCommands } from '../infra/redis';
import { shopTag } from '../infra/keyspace';
import type { ShopWork } from '../registry/ports';
import { UnreadableRecord } from '../checkout/checkout-record';
import { checkoutKeys } from './checkout-keys';
import { RedisCheckoutStore } from './redis-checkout-store';

/** Ids read at a time when counting a shop's open work. */
const OPEN_WORK_PAGE = 500;

/** A shop's open work, and the removal of its data, for `shops remove`. */
export class RedisShopWork implements ShopWork {
  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix: string,
  ) {}

  /**
   * The checkouts of the reconciler's line and of the failed set, less those whose record cannot
   * be read: nothing can be done for such a record, so it never keeps its shop from going
   * (CONTRACT "One range for `service_id`"), parked by the reconciler yet or not.
   */
  async openWork(shop: string): Promise<{ unreported: number; failed: number }> {
    const keys = checkoutKeys(this.prefix, shop);
    const store = new RedisCheckoutStore(this.redis, this.prefix, shop);
    const readableIn = async (key: string): Promise<number> => {
      let readable = 0;
      // A page at a time: an empty set costs one round trip, a large one never one huge answer.
      for (let start = 0; ; start += OPEN_WORK_PAGE) {
        const ids = await this.redis.zrange(key, start, start + OPEN_WORK_PAGE - 1);
        const records = await store.getMany(ids);
        readable += records.filter((record) => !(record instanceof UnreadableRecord)).length;
        if (ids.length < OPEN_WORK_PAGE) return readable;
      }
    };
    const [unreported, failed] = await Promise.all([readableIn(keys.due), readableIn(keys.parked)]);
    return { unreported, failed };
  }

  /**
   * Every key under the shop's tag, in batches. They share one slot, so one UNLINK takes a batch
   * on a Cluster too; SCAN asks every primary (it is keyless).
   */
  async purge(shop: string): Promise<void> {
    const match = `${escapeGlob(shopTag(this.prefix, shop))}:*`;
    for await (const keys of scanPrimaries(this.redis, match)) await this.redis.unlink(...keys);
  }
}

/** A literal for SCAN's MATCH: the tag's braces are plain, but `[`, `*`, `?` and `\` are not. */
function escapeGlob(text: string): string {
  return text.replace(/[[\]*?\\]/g, '\\$&');
}
