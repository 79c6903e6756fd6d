import { scanPrimaries, type RedisCommands } from '../infra/redis';
import { breakerKey, shopTag } from '../infra/keyspace';
import type { ShopWork } from '../registry/ports';
import { checkoutKeys } from './checkout-keys';

/** A shop's open work, and the removal of its data, for `shops remove`. */
export class RedisShopWork implements ShopWork {
  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix: string,
  ) {}

  /** `scope`: the shop's id, or its id and incarnation (src/infra/keyspace.ts `shopScope`). */
  async openWork(scope: string): Promise<{ unreported: number; failed: number }> {
    const keys = checkoutKeys(this.prefix, scope);
    const [unreported, failed] = await Promise.all([
      this.redis.zcard(keys.due),
      this.redis.zcard(keys.parked),
    ]);
    return { unreported, failed };
  }

  /**
   * Every key under the shop's tag, in batches. They share one slot, so one UNLINK takes a batch
   * on a Cluster too; SCAN asks every primary (it is keyless).
   */
  async purge(scope: string): Promise<void> {
    const match = `${escapeGlob(shopTag(this.prefix, scope))}:*`;
    for await (const keys of scanPrimaries(this.redis, match)) await this.redis.unlink(...keys);
  }

  /**
   * The shop's circuit breaker: the state of its platform account, kept under the shop's id
   * whatever its incarnation (its metrics and logs name the shop), deleted when the shop is.
   */
  async forgetBreaker(shop: string): Promise<void> {
    await this.redis.unlink(breakerKey(this.prefix, shop));
  }
}

/** A literal for SCAN's MATCH: the tag's braces are plain, but `[`, `*`, `?` and `\` are not. */
function escapeGlob(text: string): string {
  return text.replace(/[[\]*?\\]/g, '\\$&');
}
