import { ConfigError, type Config } from '../config';
import { connectionErrorLogger, REDIS_CHECK, type Logger } from '../infra/logger';
import { redactedRedisUrl } from '../redis/redis-url';
import { closeRedis, createRedis, waitForRedis, type ConnectorConnection } from '../redis/redis';
import { evictionRisk, readEvictionPolicy } from '../redis/redis-safety';
import { holdsLayout1 } from '../store/layout-migration';

/**
 * Refuses to run on a Redis that may evict keys in production (queued notifications could
 * vanish), and warns elsewhere.
 */
async function checkRedisSafety(redis: ConnectorConnection, config: Config, logger: Logger) {
  const policy = await readEvictionPolicy(redis);
  const risk = evictionRisk(policy, config.env === 'production');
  if (risk === 'safe') return;
  if (risk === 'unknown') {
    logger.warn('could not read maxmemory-policy; make sure Redis is set to noeviction');
    return;
  }
  const problem = `REDIS_URL: Redis may evict keys (maxmemory-policy ${policy}); set maxmemory-policy noeviction so queued notifications are never dropped`;
  if (risk === 'refused') throw new ConfigError([problem]);
  logger.warn('redis may evict keys', { maxmemoryPolicy: policy });
}

/**
 * Refuses to start on data a previous release left in its own layout: this release would not see
 * its checkouts and deliveries. `connector migrate` moves them.
 */
async function checkLayout(redis: ConnectorConnection, config: Config): Promise<void> {
  if (!(await holdsLayout1(redis, config.redis.prefix))) return;
  throw new ConfigError([
    `QUEUE_PREFIX: Redis holds the previous release's data under "${config.redis.prefix}" in its old layout; stop every process of the previous release, run "npx connector migrate", then start this one (docs/operating.md, "Upgrading")`,
  ]);
}

/**
 * The producer connection, checked: it waits up to 5 s for Redis (starting without it is
 * allowed: /readyz says 503 meanwhile), then refuses an evicting Redis in production.
 */
export async function connectRedis(
  config: Config,
  logger: Logger,
): Promise<{ redis: ConnectorConnection; reachable: boolean }> {
  const redis = createRedis(config.redis, 'producer', config.redis.prefix);
  redis.on('error', connectionErrorLogger(logger, { redis: 'producer' }));
  const reachable = await waitForRedis(redis, 5000);
  if (!reachable) {
    logger.warn('redis not reachable yet; /readyz answers 503 until it is', {
      timeoutMs: 5000,
      redisUrl: redactedRedisUrl(config.redis.url),
      check: REDIS_CHECK,
    });
    return { redis, reachable };
  }
  const checks = async (): Promise<void> => {
    await checkRedisSafety(redis, config, logger);
    await checkLayout(redis, config);
  };
  await checks().catch(async (error: unknown) => {
    await closeRedis(redis);
    throw error;
  });
  return { redis, reachable };
}
