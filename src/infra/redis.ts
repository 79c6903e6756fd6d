import { Redis, type RedisOptions } from 'ioredis';
import { settlesWithin } from './settles-within';

/**
 * Two connection profiles, as BullMQ advises: producers (HTTP handlers, readiness checks) fail
 * fast when Redis is away; workers wait for it forever (`maxRetriesPerRequest: null`).
 */
export type RedisProfile = 'producer' | 'worker';

/** Connection options for a profile, from a redis:// or rediss:// URL. */
export function redisOptions(url: string, profile: RedisProfile, name = 'connector'): RedisOptions {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.replace('/', '') || 0);
  const common: RedisOptions = {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: Number.isInteger(db) ? db : 0,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
    connectionName: `${name}-${profile}`,
    // Reconnect forever, backing off to 2 s, so a restarted Redis is picked up again.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    // After a failover the old primary answers READONLY: reconnect to find the new one.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    lazyConnect: false,
    // On disconnect ioredis ends the socket and destroys it if it has not closed after this long;
    // a socket that died already never closes again, so its 2 s default only delays exit.
    disconnectTimeout: 500,
  };
  const profileOptions: RedisOptions =
    profile === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 };
  return { ...common, ...profileOptions };
}

export function createRedis(
  url: string,
  profile: RedisProfile,
  name = 'connector',
): ConnectorRedis {
  return new ConnectorRedis(redisOptions(url, profile, name));
}

/**
 * Every connection of the connector, for two gaps between ioredis and BullMQ:
 * - ioredis emits 'end' from a socket's close handler, so `disconnect()` on a client that is
 *   waiting to reconnect (no socket) stops the reconnecting but never ends it, and BullMQ's
 *   Worker.close(), which waits for 'end', waits forever (taskforcesh/bullmq#4656). Such a client
 *   here ends at once, as ioredis ends a client that never connected.
 * - BullMQ duplicates a worker's connection for its blocking reads; the copies are the same
 *   class and are remembered, so a shutdown that cannot wait drops them all with `disconnectAll`.
 */
export class ConnectorRedis extends Redis {
  private readonly copies: Redis[] = [];

  override disconnect(reconnect = false): void {
    // 'wait' makes ioredis run its close handler now: status 'end', queued commands rejected.
    if (!reconnect && this.status === 'reconnecting') this.status = 'wait';
    super.disconnect(reconnect);
  }

  override duplicate(override?: Partial<RedisOptions>): Redis {
    const copy = new ConnectorRedis({ ...this.options, ...override });
    this.copies.push(copy);
    return copy;
  }

  /** Drops this connection and every copy at once, without waiting for Redis. */
  disconnectAll(): void {
    for (const client of [this, ...this.copies]) client.disconnect();
  }
}

/** Resolves true when Redis answers PING within `timeoutMs`. Never throws. */
export async function pingRedis(redis: Redis, timeoutMs = 1000): Promise<boolean> {
  const answer = redis.ping().then(
    (reply) => reply === 'PONG',
    () => false,
  );
  return (await settlesWithin(answer, timeoutMs)) && answer;
}

/** Resolves true once the connection is ready, false after `timeoutMs`. Never throws. */
export async function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
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

/** Closes a connection politely, falling back to disconnect when Redis is unreachable. */
export async function closeRedis(redis: Redis): Promise<void> {
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
];

/** True for the errors ioredis (and BullMQ through it) raise while Redis is away. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    UNAVAILABLE.some((text) => error.message.includes(text))
  );
}
