import type { ErpSinkConfig, SyncConfig } from '../config';
import { createErpSink } from '../erp/erp-sink';
import type { Logger } from '../infra/logger';
import type { ConnectorConnection } from '../redis/redis';
import { RedisCheckoutStore } from '../store/redis-checkout-store';
import { RedisSyncLedger } from '../store/redis-sync-ledger';
import type { SyncDeps, SyncPlatform } from '../sync/ports';

/** The sync's collaborators, as the server's workers and `connector sync` both use them. */
export function syncDeps(
  sync: SyncConfig & { sink: ErpSinkConfig },
  runtime: {
    redis: ConnectorConnection;
    prefix: string;
    shop: string;
    /** The scope of the shop's data keys (src/redis/keyspace.ts `shopScope`); its id by default. */
    scope?: string;
    platform: SyncPlatform;
    logger: Logger;
  },
): SyncDeps {
  return {
    platform: runtime.platform,
    ledger: new RedisSyncLedger(runtime.redis, runtime.prefix, runtime.scope ?? runtime.shop),
    sink: createErpSink(sync.sink, runtime.logger, runtime.shop),
    acknowledgements: new RedisCheckoutStore(
      runtime.redis,
      runtime.prefix,
      runtime.shop,
      runtime.scope === undefined ? {} : { scope: runtime.scope },
    ),
    statuses: sync.statuses,
    log: runtime.logger,
  };
}
