import type { RedisCommands } from '../infra/redis';
import { syncLedgerKey } from '../infra/keyspace';
import type { SyncItem, SyncLedger } from '../sync/ports';

/**
 * One shop's sync ledger on Redis: one hash, `{<prefix>:shop:<shop>}:sync-fp`, service id -> fingerprint of the
 * version last delivered to the ERP. About 60 bytes a service: 50,000 services take a few MB.
 * Kept without expiry (Redis must not evict it: README's Redis settings).
 */
export class RedisSyncLedger implements SyncLedger {
  private readonly key: string;

  constructor(
    private readonly redis: RedisCommands,
    prefix: string,
    shop: string,
  ) {
    this.key = syncLedgerKey(prefix, shop);
  }

  async fingerprints(serviceIds: readonly number[]): Promise<Array<string | undefined>> {
    if (serviceIds.length === 0) return [];
    const values = await this.redis.hmget(this.key, ...serviceIds.map(String));
    return values.map((value) => value ?? undefined);
  }

  async remember(delivered: readonly SyncItem[]): Promise<void> {
    if (delivered.length === 0) return;
    await this.redis.hset(
      this.key,
      ...delivered.flatMap((item) => [String(item.serviceId), item.fingerprint]),
    );
  }
}
