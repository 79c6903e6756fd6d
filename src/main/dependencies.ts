import { computedAmount, type AmountSource } from '../checkout/amount-source';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { INCIDENT_KINDS, newCheckoutId } from '../checkout/checkout-record';
import type { IncidentFollowUp } from '../checkout/ports';
import { reconcileSchedule } from '../checkout/reconcile-schedule';
import { ConfigError, type Config } from '../config';
import { connectionErrorLogger, type Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { createRedis, type ConnectorConnection } from '../redis/redis';
import { shopScope } from '../redis/keyspace';
import { ReplicaWait } from '../redis/replica-wait';
import { currentTraceparent, inTrace, isTracing } from '../tracing/tracing';
import { BullmqCheckoutJobs } from '../jobs/bullmq-checkout-jobs';
import { BullmqProviderJobs } from '../jobs/bullmq-provider-jobs';
import { BullmqSyncQueue } from '../jobs/bullmq-sync-queue';
import { expiryMinutesOf, paymentOptionsOf } from '../payments/payment-options';
import { buildProviderModule } from '../payments/build-provider';
import { PlatformClient } from '../platform/platform-client';
import { RegistryKeyError, RegistryShops } from '../shop-registry/registry-shops';
import type { ConnectLinks } from '../connect/connect-links';
import type { ShopCredentials } from '../shop-registry/shop-credentials';
import { renewingProvider } from '../payments/renewing-provider';
import type { PaymentProvider } from '../payments/payment-provider';
import type { Keyring } from '../secrets/secret-box';
import { redisCheckoutPorts } from '../store/redis-checkout-ports';
import type { RedisShopRegistry } from '../store/redis-shop-registry';
import type { ShopSettings } from '../shop-registry/shop-settings';
import { servedShops } from './shop-deps';
import { ShopRuntimeDirectory, type ShopRuntime } from './shop-runtime-directory';
import { shopReplication } from './shop-replication';
import { syncDeps } from './sync-deps';
import { registryServices } from './registry-services';

export interface DependencyOptions {
  /** Replaces the default amount source (the sum of the service's prices). */
  amountSource?: AmountSource;
  /** Tests shorten the checkout expiry below the config's minimum of 5 minutes. */
  expiryMs?: number;
  /** Tests shorten the first retry delay of producing a checkout (1 s by default). */
  produceBackoffMs?: number;
  /** Tests move the checkouts' clock by hand. */
  clock?: () => Date;
}

export interface Dependencies {
  directory: ShopRuntimeDirectory;
  /** The shops this process serves, kept current from the registry. */
  registry: RegistryShops;
  /** The registry's verbs (the admin API's and the CLI's). */
  admin: ReturnType<typeof registryServices>['admin'];
  /** The links that connect a shop's provider account (CONTRACT "Connecting"). */
  links: ConnectLinks;
  /** Connected shops' credentials: stored, renewed, marked needs_reconnect. */
  credentials: ShopCredentials;
  jobs: BullmqCheckoutJobs;
  /** The ERP sync's queue, when ERP_SINK is set. */
  syncQueue: BullmqSyncQueue | undefined;
  /** Credential renewals and the providers' passes (the providers queue). */
  providerJobs: BullmqProviderJobs;
  /** Every queue of the process, for the dashboard, metrics and close. */
  queues: BullmqCheckoutJobs['queues'];
}

export interface Runtime {
  redis: ConnectorConnection;
  logger: Logger;
  publicUrl: string;
  /** Whether Redis answered at start: the registry is read now, or by the first poll. */
  reachable?: boolean;
  /** Told the secrets of every shop the registry opens, so no log line carries them. */
  addSecrets?: (values: string[]) => void;
  /** The process's metrics (the server's; the CLI has none). */
  metrics?: Metrics;
}

/** What every shop's collaborators share: the process's queues, replica wait and counters. */
export interface ShopParts extends Runtime {
  config: Config;
  options: DependencyOptions;
  jobs: BullmqCheckoutJobs;
  syncQueue: BullmqSyncQueue | undefined;
  replication: ReplicaWait;
  incidents: IncidentFollowUp;
}

/** Read when a connected shop's token must be renewed (built after the shops' builder). */
type Renewal = { credentials(): ShopCredentials; directory(): ShopRuntimeDirectory };

/**
 * Builds the collaborators on the producer connection: the queues, shared by every shop, and a
 * builder of each shop's own (`buildShop`), used by the server, the workers and the CLI alike.
 */
export async function createDependencies(
  config: Config,
  runtime: Runtime,
  options: DependencyOptions = {},
): Promise<Dependencies> {
  const { redis, logger, publicUrl } = runtime;
  const parts = shopParts(config, runtime, options);
  const { jobs, syncQueue } = parts;
  const providerJobs = new BullmqProviderJobs(redis, config.redis.prefix, {
    logger,
    eventsConnection: () => createRedis(config.redis, 'worker', `${config.redis.prefix}-events`),
  });
  const sandboxAllowed = config.env !== 'production' || config.checkout.sandboxInProduction;
  const services = registryServices(
    redis,
    { ...config, prefix: config.redis.prefix, publicUrl, sandboxAllowed },
    logger,
    providerJobs,
  );
  const { admin, links, credentials, work } = services;
  const registry = await openRegistry(config, runtime, services);
  const renewal = { credentials: () => credentials, directory: () => directory };
  const directory = new ShopRuntimeDirectory(
    servedShops(config, registry),
    (settings) => buildShop(settings, parts, renewal),
    (scope) => work.purge(scope),
  );
  const queues = [...jobs.queues, providerJobs.queue, ...(syncQueue ? [syncQueue.queue] : [])];
  for (const queue of queues)
    queue.on('error', connectionErrorLogger(logger, { queue: queue.name }));
  return { directory, registry, admin, links, credentials, jobs, syncQueue, providerJobs, queues };
}

export function shopParts(
  config: Config,
  runtime: Runtime,
  options: DependencyOptions = {},
): ShopParts {
  const { redis, logger, metrics } = runtime;
  const prefix = config.redis.prefix;
  // The queues share the producer connection, which is closed by its owner (Queue.close leaves a
  // shared connection open), so it ends even when BullMQ's own quit would fail on a broken link.
  const jobs = new BullmqCheckoutJobs(redis, prefix, {
    notifyMaxAttempts: config.notify.maxAttempts,
    produceBackoffMs: options.produceBackoffMs,
  });
  const syncQueue = config.sync.sink
    ? new BullmqSyncQueue(redis, prefix, { maxAttempts: config.notify.maxAttempts })
    : undefined;
  // Every shop's writes go through the producer connection: one WAIT there covers them.
  const replication = new ReplicaWait(redis, {
    warn: (message, meta) => logger.warn(message, meta),
  });
  // Every kind from zero, so an alert on its increase fires at the first one.
  for (const kind of INCIDENT_KINDS) metrics?.paymentIncidents.inc({ kind }, 0);
  const incidents = { count: (kind: string) => metrics?.paymentIncidents.inc({ kind }) };
  return { ...runtime, config, options, jobs, syncQueue, replication, incidents };
}

/**
 * One shop's collaborators (store, platform client, provider, sync), as every process builds
 * them. `renewal` serves a connected shop whose token the connector renews.
 */
export function buildShop(
  settings: ShopSettings,
  parts: ShopParts,
  renewal?: Renewal,
): ShopRuntime {
  const { config, redis, publicUrl } = parts;
  const { id: shop, incarnation } = settings;
  const prefix = config.redis.prefix;
  // This incarnation's keys: a shop added again under a removed one's id sees none of its data.
  const scope = shopScope(shop, incarnation);
  // Every line a shop's collaborators log names the shop, in a request as in a job.
  const log = parts.logger.child({ shop });
  const environment = { redis, prefix, shop, scope, publicUrl };
  const providerModule = buildProviderModule(settings.provider, environment);
  const bare = providerModule.provider;
  const provider = renewal ? renewingOnRejection(settings, bare, renewal) : bare;
  const platform = new PlatformClient({ ...config.platform, ...settings.platform, logger: log });
  const { sink } = config.sync;
  return {
    settings,
    deps: checkoutDeps(settings, parts, { scope, log, platform, provider }),
    providerModule: { ...providerModule, provider },
    bareProvider: bare,
    sync: sink
      ? syncDeps({ ...config.sync, sink }, { redis, prefix, shop, scope, platform, logger: log })
      : undefined,
  };
}

function checkoutDeps(
  settings: ShopSettings,
  parts: ShopParts,
  built: Pick<CheckoutDeps, 'log' | 'platform' | 'provider'> & { scope: string },
): CheckoutDeps {
  const { config, options, redis } = parts;
  const { id: shop, incarnation } = settings;
  const { prefix } = config.redis;
  const { scope, ...shopOwn } = built;
  const paidSync = parts.syncQueue?.forShop(shop, incarnation);
  const { retentionMs } = config.checkout;
  return {
    shop,
    ...redisCheckoutPorts(redis, prefix, shop, scope, { retentionMs }),
    // First look after half a reconciler interval: a lost webhook heals within 2.3 (README).
    schedule: reconcileSchedule(config.jobs.reconcileIntervalMs),
    jobs: parts.jobs.forShop(shop, incarnation),
    // Retries live in the queues (docs/architecture.md, rule 4): the client makes one attempt.
    ...shopOwn,
    amountSource: options.amountSource ?? computedAmount,
    ...(settings.vendorFee ? { vendorFee: settings.vendorFee } : {}),
    offered: paymentOptionsOf(settings.provider.name, settings.payment),
    ...(settings.plan ? { plan: settings.plan } : {}),
    currency: config.checkout.currency,
    publicUrl: parts.publicUrl,
    expiryMs: options.expiryMs ?? expiryMsOf(settings, config),
    clock: options.clock ?? (() => new Date()),
    newCheckoutId: () => newCheckoutId(shop),
    replication: shopReplication(parts.replication, prefix, scope),
    paidSync,
    incidents: parts.incidents,
    // The ERP's payment records go where its services go (ERP_SINK): none without one.
    ...(paidSync ? { paymentRecords: paidSync } : {}),
    ...(isTracing() ? { tracing: { current: currentTraceparent, within: inTrace } } : {}),
  };
}

function expiryMsOf(settings: ShopSettings, config: Config): number {
  const { name } = settings.provider;
  const configured = config.checkout.expiryMs / 60_000;
  return expiryMinutesOf(name, settings.payment.expiryMinutes, configured) * 60_000;
}

/** The registry of shops, read now when Redis answered (a bad SHOP_SECRET_KEYS is a ConfigError). */
async function openRegistry(
  config: Config,
  runtime: Runtime,
  services: { store: RedisShopRegistry; keyring: Keyring | undefined },
): Promise<RegistryShops> {
  const registry = new RegistryShops({
    ...services,
    sandboxInProduction: config.checkout.sandboxInProduction,
    providerApiOrigins: config.providerApiOrigins,
    vendor: config.vendor,
    refreshMs: config.shops.refreshMs,
    clock: () => new Date(),
    log: runtime.logger,
    onSecrets: runtime.addSecrets ?? (() => undefined),
  });
  if (runtime.reachable !== false) {
    try {
      await registry.load();
    } catch (error) {
      if (error instanceof RegistryKeyError) throw new ConfigError(error.problems);
      throw error;
    }
  }
  registry.start();
  return registry;
}

/**
 * A connected shop's provider whose token the connector renews: a 401 renews it once (one process
 * does) and retries once, with the shop's bare adapter as stored after the renewal (the same
 * incarnation, another credential), so a 401 again is the call's answer. Any other provider as
 * it is.
 */
function renewingOnRejection(
  settings: ShopSettings,
  bare: PaymentProvider,
  late: { credentials(): ShopCredentials; directory(): ShopRuntimeDirectory },
): PaymentProvider {
  const { connection, id: shop, incarnation } = settings;
  if (!connection?.renews) return bare;
  return renewingProvider(bare, async () => {
    await late.credentials().renew(shop, { reason: 'rejected', stale: connection.fingerprint });
    const now = await late.directory().byId(shop);
    return now &&
      now.settings !== settings &&
      now.settings.incarnation === incarnation &&
      now.settings.connection?.fingerprint !== connection.fingerprint
      ? now.bareProvider
      : undefined;
  });
}
