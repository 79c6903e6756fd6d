import { AppError } from '../errors';
import type { ErpSinkConfig, SyncConfig } from '../config';
import { createErpSink } from '../erp/erp-sink';
import type { Logger } from '../infra/logger';
import type { ConnectorConnection } from '../redis/redis';
import { partCheckoutsOf, servicePaymentOf } from '../checkout/plan-checkout';
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
  const store = new RedisCheckoutStore(
    runtime.redis,
    runtime.prefix,
    runtime.shop,
    runtime.scope === undefined ? {} : { scope: runtime.scope },
  );
  return {
    platform: runtime.platform,
    ledger: new RedisSyncLedger(runtime.redis, runtime.prefix, runtime.scope ?? runtime.shop),
    sink: createErpSink(sync.sink, runtime.logger, runtime.shop),
    acknowledgements: store,
    payments: { of: (serviceIds) => planPaymentsOf(store, serviceIds) },
    statuses: sync.statuses,
    log: runtime.logger,
  };
}

/**
 * The payments of the planned orders among `serviceIds` (plan-checkout.ts `servicePaymentOf`),
 * undefined for the rest: one read for the page, then the planned ones' checkouts and parts.
 */
async function planPaymentsOf(
  store: RedisCheckoutStore,
  serviceIds: readonly number[],
): Promise<Array<Record<string, unknown> | undefined>> {
  const planned = await store.plannedServices(serviceIds);
  return Promise.all(
    serviceIds.map(async (serviceId, i) => {
      if (!planned[i]) return undefined;
      // An unreadable record is the reconciler's to park: its service goes without. Redis away
      // fails the pass, as any of its reads.
      const record = await store.latestForService(serviceId).catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'CHECKOUT_UNREADABLE') return undefined;
        throw error;
      });
      // Its planned checkout outlived its retention: the service is no longer asked about.
      if (!record) await store.forgetPlannedService(serviceId);
      return record
        ? servicePaymentOf(record, await partCheckoutsOf({ store }, record))
        : undefined;
    }),
  );
}
