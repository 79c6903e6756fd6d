import { AppError } from '../errors';
import { isCluster, type RedisCommands } from './redis-nodes';
import { settlesWithin } from './settles-within';

/**
 * Resolves true when Redis answers within `timeoutMs`: PING on one server; on a Cluster, the
 * cluster itself saying every slot is served (`CLUSTER INFO`: `cluster_state:ok`), which a
 * primary lost and not yet replaced is not. Never throws.
 */
export async function pingRedis(redis: RedisCommands, timeoutMs = 1000): Promise<boolean> {
  const answer = (
    isCluster(redis)
      ? redis.cluster('INFO').then((info) => /^cluster_state:ok\b/m.test(String(info)))
      : redis.ping().then((reply) => reply === 'PONG')
  ).catch(() => false);
  return (await settlesWithin(answer, timeoutMs)) && answer;
}

/** Resolves true once the connection is ready, false after `timeoutMs`. Never throws. */
export async function waitForRedis(redis: RedisCommands, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

export async function closeRedis(redis: RedisCommands): Promise<void> {
  if (redis.status === 'end') return;
  // Already closing or unreachable, quit fails or hangs: the disconnect below is enough.
  await settlesWithin(redis.quit(), 500);
  redis.disconnect();
}

const UNAVAILABLE = [
  "Stream isn't writeable",
  'Connection is closed',
  'Reached the max retries per request limit',
  'connect ECONNREFUSED',
  'READONLY',
  'LOADING',
  'All sentinels are unreachable',
  // A Cluster during a failover, or with no node left.
  'CLUSTERDOWN',
  'TRYAGAIN',
  'Too many Cluster redirections',
  'Failed to refresh slots cache',
  "Cluster isn't ready",
  'None of startup nodes is available',
  // A primary that stopped answering (socketTimeout): the client is reconnecting.
  'Socket timeout',
];

/**
 * True for the errors ioredis (and BullMQ through it) raise while Redis is away, and for the
 * connector's own REDIS_UNAVAILABLE (the replica wait's: no replica confirmed, no answer).
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof AppError) return error.code === 'REDIS_UNAVAILABLE';
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    UNAVAILABLE.some((text) => error.message.includes(text))
  );
}
