import { computedAmount, type AmountSource } from '../checkout/amount-source';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { newCheckoutId } from '../checkout/checkout-record';
import type { Config } from '../config';
import { connectionErrorLogger, type Logger } from '../infra/logger';
import type { ConnectorRedis } from '../infra/redis';
import { BullmqCheckoutJobs } from '../jobs/bullmq-checkout-jobs';
import type { ProviderModule } from '../payments/provider-module';
import { buildProviderModule } from '../payments/registry';
import { PlatformClient } from '../platform/platform-client';
import { RedisCheckoutStore } from '../store/redis-checkout-store';
import { BullmqSyncQueue } from '../jobs/bullmq-sync-queue';
import type { SyncDeps } from '../sync/ports';
import { syncDeps } from './sync-deps';

export interface DependencyOptions {
  /** Replaces the default amount source (the sum of the service's prices). */
  amountSource?: AmountSource;
  /** Tests shorten the checkout expiry below the config's minimum of 5 minutes. */
  expiryMs?: number;
  /** Tests shorten the first retry delay of producing a checkout (1 s by default). */
  produceBackoffMs?: number;
}

export interface Dependencies {
  deps: CheckoutDeps;
  jobs: BullmqCheckoutJobs;
  providerModule: ProviderModule;
  /** The ERP sync, when ERP_SINK is set. */
  sync: { deps: SyncDeps; queue: BullmqSyncQueue } | undefined;
  /** Every queue of the process, for the dashboard, metrics and close. */
  queues: BullmqCheckoutJobs['queues'];
}

/** Builds the use cases' collaborators on the producer connection: store, queues, platform, provider. */
export function createDependencies(
  config: Config,
  runtime: { redis: ConnectorRedis; logger: Logger; publicUrl: string },
  options: DependencyOptions = {},
): Dependencies {
  const { redis, logger, publicUrl } = runtime;
  // The queues share the producer connection, which is closed by its owner (Queue.close leaves a
  // shared connection open), so it ends even when BullMQ's own quit would fail on a broken link.
  const jobs = new BullmqCheckoutJobs(redis, config.redis.prefix, {
    notifyMaxAttempts: config.notify.maxAttempts,
    produceBackoffMs: options.produceBackoffMs,
  });
  const providerModule = buildProviderModule(
    {
      name: config.checkout.provider,
      sandboxInProduction: config.checkout.sandboxInProduction,
      stripe: config.checkout.stripe,
      mercadopago: config.checkout.mercadopago,
    },
    { redis, prefix: config.redis.prefix, publicUrl },
  );
  const platform = new PlatformClient({ ...config.platform, logger });
  const { sink } = config.sync;
  const sync = sink
    ? {
        queue: new BullmqSyncQueue(redis, config.redis.prefix, {
          maxAttempts: config.notify.maxAttempts,
        }),
        deps: syncDeps(
          { ...config.sync, sink },
          { redis, prefix: config.redis.prefix, platform, logger },
        ),
      }
    : undefined;
  const deps: CheckoutDeps = {
    // First look after half a reconciler interval: a lost webhook heals within 2.3 (README).
    store: new RedisCheckoutStore(redis, config.redis.prefix, {
      firstLookMs: Math.round(config.jobs.reconcileIntervalMs / 2),
    }),
    jobs,
    // Retries live in the queues (STYLE.md rule 4): the client makes one attempt by default.
    platform,
    provider: providerModule.provider,
    amountSource: options.amountSource ?? computedAmount,
    currency: config.checkout.currency,
    publicUrl,
    expiryMs: options.expiryMs ?? config.checkout.expiryMs,
    clock: () => new Date(),
    newCheckoutId,
    log: logger,
    paidSync: sync?.queue,
  };
  const queues = sync ? [...jobs.queues, sync.queue.queue] : jobs.queues;
  for (const queue of queues)
    queue.on('error', connectionErrorLogger(logger, { queue: queue.name }));
  return { deps, jobs, providerModule, sync, queues };
}
