import type { Queue } from 'bullmq';
import type { CliAdapters, QueueAccess } from '../cli/cli-adapters';
import { CliFailure, EXIT } from '../cli/cli-io';
import { closeRedis, createRedis, waitForRedis, type RedisEndpoint } from '../redis/redis';
import { redactedRedisUrl } from '../redis/redis-url';
import { BullmqDeliveryHistory, BullmqFailedDeliveries } from '../jobs/bullmq-failed-deliveries';
import type { Writable } from 'node:stream';
import type { LogConfig } from '../config';
import { createLogger, type Logger } from '../infra/logger';
import type { ConnectorConnection } from '../redis/redis';
import { connectorQueue } from '../jobs/bullmq-checkout-jobs';
import { QUEUES } from '../jobs/queue-names';
import { shopScope } from '../redis/keyspace';
import { namedShop, shopOrEnv } from '../shop/shop-id';
import { shopPlatformAccount } from './shop-deps';
import { PlatformClient } from '../platform/platform-client';
import { Layout1OnClusterError, migrateToLayout2 } from '../store/layout-migration';
import { migrateConnectStates } from '../store/connect-migration';
import { extendRetention } from '../store/retention-migration';
import { watchPaidPixOfBefore } from '../store/watch-migration';
import { redisCheckoutPorts } from '../store/redis-checkout-ports';
import { RedisShopRegistry } from '../store/redis-shop-registry';
import { registryServices } from './registry-services';
import { syncDeps } from './sync-deps';

/** The CLI's adapters on the connector's Redis: the store and the failed set, as the server has them. */
export const cliAdapters: CliAdapters = {
  async migrate(redisConfig, options) {
    const redis = await connectCliRedis(redisConfig);
    try {
      const layout = await migrateToLayout2(redis, redisConfig.prefix, options);
      // After the move: the records are where the current release keeps them.
      const retention = await extendRetention(redis, redisConfig.prefix, options.retentionMs, {
        dryRun: options.dryRun || layout.conflicts.length > 0,
      });
      const connect = await migrateConnectStates(redis, redisConfig.prefix, options);
      const watch = await watchPaidPixOfBefore(redis, redisConfig.prefix, options.pixWatchDays, {
        dryRun: options.dryRun || layout.conflicts.length > 0,
      });
      return { ...layout, retention, connect, watch };
    } catch (error) {
      if (error instanceof Layout1OnClusterError) throw new CliFailure(error.message, EXIT.failure);
      throw error;
    } finally {
      await closeRedis(redis);
    }
  },

  async openShops(config) {
    const redis = await connectCliRedis(config.redis);
    const logger = cliLogger(config, 'shops');
    const settings = { ...config, prefix: config.redis.prefix };
    const { admin, platformCheck, links } = registryServices(redis, settings, logger);
    return { links, admin, credentials: platformCheck, close: () => closeRedis(redis) };
  },

  shopPlatform(env, shop, stderr) {
    return shopPlatformAccount(env, shop, (config) => cliAdapters.openShops(config), stderr);
  },
  async openQueues(redisConfig, shop = shopOrEnv(undefined)): Promise<QueueAccess> {
    const { prefix } = redisConfig;
    const redis = await connectCliRedis(redisConfig);
    // The queue as it is: opening it writes nothing (notifications retry moves its own jobs).
    const queue = connectorQueue(QUEUES.notifications, redis, prefix, { readOnly: true });
    queue.on('error', () => undefined);
    // The ERP's payment records, for a checkout's evidence: opened when first read. A queue
    // closed while BullMQ still readies its connection (a Cluster's version check) fails that
    // step after the close, with no listener left: each is closed once it is ready.
    let sync: Queue | undefined;
    const syncQueue = () => {
      sync ??= connectorQueue(QUEUES.sync, redis, prefix, { readOnly: true });
      sync.on('error', () => undefined);
      return sync;
    };
    // A shop's data as it is now: the keys of its current incarnation, never a predecessor's.
    // Each shop's incarnation is read once, and its ports made once, for the whole command.
    const incarnationOf = oncePerKey((id) => storedIncarnation(redis, prefix, id));
    const portsIn = oncePerKey(async (id) =>
      redisCheckoutPorts(redis, prefix, id, shopScope(id, await incarnationOf(id))),
    );
    const storeOf = (id: string) => ({
      get: async (checkoutId: string) => (await portsIn(id)).store.get(checkoutId),
    });
    const { store, line } = await portsIn(shop);
    return {
      store,
      line,
      failedDeliveries: new BullmqFailedDeliveries(queue, storeOf, incarnationOf),
      deliveryHistory: new BullmqDeliveryHistory(queue, syncQueue),
      close: async () => {
        for (const opened of [queue, sync]) {
          await opened?.waitUntilReady().catch(() => undefined);
          await opened?.close();
        }
        await closeRedis(redis);
      },
    };
  },

  async openSync(config) {
    const redis = await connectCliRedis(config.redis);
    const logger = cliLogger(config, 'sync');
    return {
      deps: syncDeps(config.sync, {
        redis,
        prefix: config.redis.prefix,
        shop: config.shop,
        scope: await currentScope(redis, config.redis.prefix, config.shop),
        // A person is waiting: GETs get a short retry, as in `services`.
        platform: new PlatformClient({ ...config.platform, logger, getRetries: 2 }),
        logger,
      }),
      close: () => closeRedis(redis),
    };
  },
};

function oncePerKey<T>(make: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const made = new Map<string, Promise<T>>();
  return (key) => {
    const found = made.get(key) ?? make(key);
    made.set(key, found);
    return found;
  };
}

/** The incarnation of the shop stored under `shop` now ('' for none); undefined when no shop is. */
async function storedIncarnation(
  redis: ConnectorConnection,
  prefix: string,
  shop: string,
): Promise<string | undefined> {
  // The env shop is in no registry: its data has no incarnation.
  if (namedShop(shop) === undefined) return '';
  const entry = await new RedisShopRegistry(redis, prefix).get(shop);
  return entry && (entry.stored.incarnation ?? '');
}

/** The scope of a shop's data keys as the registry holds it now (src/redis/keyspace.ts). */
async function currentScope(redis: ConnectorConnection, prefix: string, shop: string) {
  return shopScope(shop, await storedIncarnation(redis, prefix, shop));
}

/** A CLI command's log: to stderr (stdout is the command's output), its secrets scrubbed. */
function cliLogger(
  config: { log: LogConfig; secrets: readonly string[]; stderr: Writable },
  component: string,
): Logger {
  return createLogger({ ...config.log, secrets: config.secrets, stream: config.stderr, component });
}

/** The CLI's Redis connection; a CliFailure naming REDIS_URL when Redis does not answer. */
async function connectCliRedis(endpoint: RedisEndpoint): Promise<ConnectorConnection> {
  const redis = createRedis(endpoint, 'producer', 'connector-cli');
  // A failed command says what went wrong; the connection's own errors add nothing.
  redis.on('error', () => undefined);
  if (!(await waitForRedis(redis, 5000))) {
    await closeRedis(redis);
    throw new CliFailure(
      `cannot reach Redis at REDIS_URL (${redactedRedisUrl(endpoint.url)})`,
      EXIT.failure,
    );
  }
  return redis;
}
