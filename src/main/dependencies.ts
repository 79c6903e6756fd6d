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
  for (const queue of jobs.queues)
    queue.on('error', connectionErrorLogger(logger, { queue: queue.name }));
  const providerModule = buildProviderModule(
    {
      name: config.checkout.provider,
      sandboxInProduction: config.checkout.sandboxInProduction,
      stripe: config.checkout.stripe,
      mercadopago: config.checkout.mercadopago,
    },
    { redis, prefix: config.redis.prefix, publicUrl },
  );
  const deps: CheckoutDeps = {
    // A lost webhook is healed within two reconciler intervals: first look after half of one.
    store: new RedisCheckoutStore(redis, config.redis.prefix, {
      firstLookMs: Math.round(config.jobs.reconcileIntervalMs / 2),
    }),
    jobs,
    // Retries live in the queues (STYLE.md rule 4): the client makes one attempt by default.
    platform: new PlatformClient({ ...config.platform, logger }),
    provider: providerModule.provider,
    amountSource: options.amountSource ?? computedAmount,
    currency: config.checkout.currency,
    publicUrl,
    expiryMs: options.expiryMs ?? config.checkout.expiryMs,
    clock: () => new Date(),
    newCheckoutId,
    log: logger,
  };
  return { deps, jobs, providerModule };
}
