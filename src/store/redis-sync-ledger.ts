import type { RedisCommands } from '../redis/redis';
import { syncLedgerKey } from '../redis/keyspace';
import type { SyncItem, SyncLedger } from '../sync/ports';

/**
 * One shop's sync ledger: one hash, service id -> fingerprint of the version last delivered to the
 * ERP, about 60 bytes a service. Kept without expiry (Redis must not evict it: README).
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
