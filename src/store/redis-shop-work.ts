import { scanPrimaries, type RedisCommands } from '../redis/redis';
import { breakerKey, shopTag } from '../redis/keyspace';
import type { ShopWork } from '../shop-registry/ports';
import { UnreadableRecord } from '../checkout/checkout-record';
import { checkoutKeys } from './checkout-keys';
import { readRecords } from './read-records';

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
   * (CONTRACT "One range for `service_id`").
   */
  async openWork(scope: string): Promise<{ unreported: number; failed: number }> {
    const keys = checkoutKeys(this.prefix, scope);
    const readableIn = async (key: string): Promise<number> => {
      let readable = 0;
      // A page at a time: an empty set costs one round trip, a large one never one huge answer.
      for (let start = 0; ; start += OPEN_WORK_PAGE) {
        const ids = await this.redis.zrange(key, start, start + OPEN_WORK_PAGE - 1);
        const records = await readRecords(this.redis, keys, ids);
        readable += records.filter((record) => !(record instanceof UnreadableRecord)).length;
        if (ids.length < OPEN_WORK_PAGE) return readable;
      }
    };
    const [unreported, failed] = await Promise.all([readableIn(keys.due), readableIn(keys.parked)]);
    return { unreported, failed };
  }

  /** Every key under the shop's tag: one slot, so one UNLINK takes a batch on a Cluster too. */
  async purge(scope: string): Promise<void> {
    const match = `${escapeGlob(shopTag(this.prefix, scope))}:*`;
    for await (const keys of scanPrimaries(this.redis, match)) await this.redis.unlink(...keys);
  }

  async forgetBreaker(shop: string): Promise<void> {
    await this.redis.unlink(breakerKey(this.prefix, shop));
  }
}

/** A literal for SCAN's MATCH: the tag's braces are plain, but `[`, `*`, `?` and `\` are not. */
function escapeGlob(text: string): string {
  return text.replace(/[[\]*?\\]/g, '\\$&');
}
