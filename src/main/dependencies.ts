import { computedAmount, type AmountSource } from '../checkout/amount-source';
import type { CheckoutDeps } from '../checkout/checkout-deps';
import { INCIDENT_KINDS, newCheckoutId } from '../checkout/checkout-record';
import type { IncidentFollowUp } from '../checkout/ports';
import { reconcileSchedule } from '../checkout/reconcile-schedule';
import { ConfigError, type Config } from '../config';
import { connectionErrorLogger, type Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import type { ConnectorConnection } from '../infra/redis';
import { shopScope } from '../infra/keyspace';
import { ReplicaWait } from '../infra/replica-wait';
import { currentTraceparent, inTrace, isTracing } from '../infra/tracing';
import { BullmqCheckoutJobs } from '../jobs/bullmq-checkout-jobs';
import { BullmqSyncQueue } from '../jobs/bullmq-sync-queue';
import { expiryMinutesOf } from '../payments/payment-options';
import { buildProviderModule } from '../payments/build-provider';
import { PlatformClient } from '../platform/platform-client';
import { RegistryKeyError, RegistryShops } from '../shop-registry/registry-shops';
import { ShopAdmin } from '../shop-registry/shop-admin';
import type { ConnectLinks } from '../connect/connect-links';
import type { ShopCredentials } from '../shop-registry/shop-credentials';
import { connectServices } from './connect-services';
import { renewingProvider } from '../payments/renewing-provider';
import type { PaymentProvider } from '../payments/payment-provider';
import { parseKeyring, type Keyring } from '../secrets/secret-box';
import { redisCheckoutPorts } from '../store/redis-checkout-ports';
import { RedisShopRegistry } from '../store/redis-shop-registry';
import { RedisShopWork } from '../store/redis-shop-work';
import { platformCredentialCheck } from './credential-check';
import type { SyncDeps } from '../sync/ports';
import type { ShopSettings } from '../shop-registry/shop-settings';
import { servedShops } from './shop-deps';
import { ShopRuntimeDirectory, type ShopRuntime } from './shop-runtime-directory';
import { shopReplication } from './shop-replication';
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
  /** Which shop, which collaborators: every shop's, built once each. */
  directory: ShopRuntimeDirectory;
  /** The shops this process serves, kept current from the registry. */
  registry: RegistryShops;
  /** The registry's verbs (the admin API's and the CLI's). */
  admin: ShopAdmin;
  /** The links that connect a shop's provider account (CONTRACT "Connecting"). */
  links: ConnectLinks;
  /** Connected shops' credentials: stored, renewed, marked needs_reconnect. */
  credentials: ShopCredentials;
  jobs: BullmqCheckoutJobs;
  /** The ERP sync's queue, when ERP_SINK is set. */
  syncQueue: BullmqSyncQueue | undefined;
  /** Every queue of the process, for the dashboard, metrics and close. */
  queues: BullmqCheckoutJobs['queues'];
}

/**
 * Builds the collaborators on the producer connection: the queues, shared by every shop, and a
 * builder of each shop's own (store, platform client, provider, sync), used by the server, the
 * workers and the CLI alike.
 */
// eslint-disable-next-line max-lines-per-function -- the composition root: every collaborator built once, in order (review 4's finding 10 proposes splitting it into shared and per-shop builders)
export async function createDependencies(
  config: Config,
  runtime: {
    redis: ConnectorConnection;
    logger: Logger;
    publicUrl: string;
    /** Whether Redis answered at start: the registry is read now, or by the first poll. */
    reachable?: boolean;
    /** Told the secrets of every shop the registry opens, so no log line carries them. */
    addSecrets?: (values: string[]) => void;
    /** The process's metrics (the server's; the CLI has none). */
    metrics?: Metrics;
  },
  options: DependencyOptions = {},
): Promise<Dependencies> {
  const { redis, logger, publicUrl } = runtime;
  const prefix = config.redis.prefix;
  // The queues share the producer connection, which is closed by its owner (Queue.close leaves a
  // shared connection open), so it ends even when BullMQ's own quit would fail on a broken link.
  const jobs = new BullmqCheckoutJobs(redis, prefix, {
    notifyMaxAttempts: config.notify.maxAttempts,
    produceBackoffMs: options.produceBackoffMs,
  });
  const { sink } = config.sync;
  const syncQueue = sink
    ? new BullmqSyncQueue(redis, prefix, { maxAttempts: config.notify.maxAttempts })
    : undefined;

  // Every shop's writes go through the producer connection: one WAIT there covers them.
  const replication = new ReplicaWait(redis, {
    warn: (message, meta) => logger.warn(message, meta),
  });
  // Every kind from zero, so an alert on its increase fires at the first one.
  for (const kind of INCIDENT_KINDS) runtime.metrics?.paymentIncidents.inc({ kind }, 0);
  const incidents: IncidentFollowUp = {
    count: (kind) => runtime.metrics?.paymentIncidents.inc({ kind }),
  };
  // One trace per checkout, when tracing is on.
  const tracing: Pick<CheckoutDeps, 'tracing'> = isTracing()
    ? { tracing: { current: currentTraceparent, within: inTrace } }
    : {};
  const buildShop = (settings: ShopSettings): ShopRuntime => {
    const shop = settings.id;
    const { incarnation } = settings;
    // This incarnation's keys: a shop added again under a removed one's id sees none of its data.
    const scope = shopScope(shop, incarnation);
    // Every line a shop's collaborators log names the shop, in a request as in a job.
    const log = logger.child({ shop });
    const providerModule = buildProviderModule(settings.provider, {
      redis,
      prefix,
      shop,
      scope,
      publicUrl,
    });
    const provider = renewingOnRejection(settings, providerModule.provider, {
      credentials: () => credentials,
      directory: () => directory,
    });
    const platform = new PlatformClient({ ...config.platform, ...settings.platform, logger: log });
    const paidSync = syncQueue?.forShop(shop, incarnation);
    const sync: SyncDeps | undefined = sink
      ? syncDeps({ ...config.sync, sink }, { redis, prefix, shop, scope, platform, logger: log })
      : undefined;
    const deps: CheckoutDeps = {
      shop,
      ...redisCheckoutPorts(redis, prefix, shop, scope, {
        retentionMs: config.checkout.retentionMs,
      }),
      // First look after half a reconciler interval: a lost webhook heals within 2.3 (README).
      schedule: reconcileSchedule(config.jobs.reconcileIntervalMs),
      jobs: jobs.forShop(shop, incarnation),
      // Retries live in the queues (docs/architecture.md, rule 4): the client makes one attempt.
      platform,
      provider,
      amountSource: options.amountSource ?? computedAmount,
      ...(settings.vendorFee ? { vendorFee: settings.vendorFee } : {}),
      currency: config.checkout.currency,
      publicUrl,
      expiryMs:
        options.expiryMs ??
        expiryMinutesOf(
          settings.provider.name,
          settings.payment.expiryMinutes,
          config.checkout.expiryMs / 60_000,
        ) * 60_000,
      clock: () => new Date(),
      newCheckoutId: () => newCheckoutId(shop),
      log,
      replication: shopReplication(replication, prefix, scope),
      paidSync,
      incidents,
      // The ERP's payment records go where its services go (ERP_SINK): none without one.
      ...(paidSync ? { paymentRecords: paidSync } : {}),
      ...tracing,
    };
    return {
      settings,
      deps,
      providerModule: { ...providerModule, provider },
      bareProvider: providerModule.provider,
      sync,
    };
  };

  const keyring = keyringOf(config);
  const store = new RedisShopRegistry(redis, prefix);
  const { links, credentials } = connectServices(redis, prefix, {
    store,
    keyring,
    vendor: config.vendor,
    providerApiOrigins: config.providerApiOrigins,
    publicUrl,
    logger,
  });
  const registry = new RegistryShops({
    store,
    keyring,
    sandboxInProduction: config.checkout.sandboxInProduction,
    providerApiOrigins: config.providerApiOrigins,
    vendor: config.vendor,
    refreshMs: config.shops.refreshMs,
    clock: () => new Date(),
    log: logger,
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
  const work = new RedisShopWork(redis, prefix);
  const directory = new ShopRuntimeDirectory(servedShops(config, registry), buildShop, (scope) =>
    work.purge(scope),
  );
  const admin = new ShopAdmin({
    store,
    keyring,
    credentials: platformCredentialCheck({
      vendor: config.vendor,
      platform: config.platform,
      redis,
      prefix,
      publicUrl,
      logger,
    }),
    work,
    publicUrl,
    clock: () => new Date(),
    sandboxAllowed: config.env !== 'production' || config.checkout.sandboxInProduction,
    providerApiOrigins: config.providerApiOrigins,
  });
  const queues = syncQueue ? [...jobs.queues, syncQueue.queue] : jobs.queues;
  for (const queue of queues)
    queue.on('error', connectionErrorLogger(logger, { queue: queue.name }));
  return {
    directory,
    registry,
    admin,
    links,
    credentials,
    jobs,
    syncQueue,
    queues,
  };
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

/** SHOP_SECRET_KEYS parsed (the configuration checked it already). */
export function keyringOf(config: {
  shops: { secretKeys: string | undefined };
}): Keyring | undefined {
  if (config.shops.secretKeys === undefined) return undefined;
  const keyring = parseKeyring(config.shops.secretKeys);
  if ('problems' in keyring)
    throw new ConfigError(keyring.problems.map((p) => `SHOP_SECRET_KEYS: ${p}`));
  return keyring;
}
