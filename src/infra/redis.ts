import { Redis, type RedisOptions } from 'ioredis';
import { parseServedRedisUrl } from '../redis-url';
import { settlesWithin } from './settles-within';

/**
 * Two connection profiles, as BullMQ advises: producers (HTTP handlers, readiness checks) fail
 * fast when Redis is away; workers wait for it forever (`maxRetriesPerRequest: null`).
 */
export type RedisProfile = 'producer' | 'worker';

/** Where Redis is: REDIS_URL (any of its forms) and, for Sentinels with one, their password. */
export interface RedisEndpoint {
  url: string;
  sentinelPassword?: string;
}

/** Backs off to 2 s and never gives up: a restarted or promoted Redis is picked up again. */
const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 2000);

/**
 * Connection options for a profile: one server (redis://, rediss://), or the primary the
 * Sentinels name (redis+sentinel://), found again after every failover. The one place every
 * connection of the connector is described: producers, workers (and BullMQ's copies of them),
 * the CLI, the rate limiter, the readiness and safety checks.
 */
export function redisOptions(
  endpoint: string | RedisEndpoint,
  profile: RedisProfile,
  name = 'connector',
): RedisOptions {
  const { url, sentinelPassword } = typeof endpoint === 'string' ? { url: endpoint } : endpoint;
  const topology = parseServedRedisUrl(url);
  const where: RedisOptions =
    topology.kind === 'single'
      ? { host: topology.node.host, port: topology.node.port }
      : {
          sentinels: topology.sentinels,
          name: topology.name,
          role: 'master',
          sentinelPassword,
          enableTLSForSentinelMode: topology.tls,
          // ioredis's failoverDetector stays off (its default). On +switch-master it calls the
          // connector's disconnect(), which, if the client is reconnecting at that moment (its
          // primary just died, the Sentinels still being asked), makes that connect fail with
          // "Connection is closed." and the client end for good: every command then fails. Our
          // drill hit it on a loaded machine. A promotion is seen anyway: a dead primary closes
          // the socket, a demoted one closes its clients' connections or answers READONLY.
          sentinelRetryStrategy: reconnectDelay,
        };
  const common: RedisOptions = {
    ...where,
    username: topology.username,
    password: topology.password,
    db: topology.db,
    tls: topology.tls ? {} : undefined,
    connectionName: `${name}-${profile}`,
    retryStrategy: reconnectDelay,
    // After a failover the old primary answers READONLY, a replica still loading its data
    // LOADING: reconnect (to the primary now) and send the command again (2), not fail it.
    reconnectOnError: (error) => (/^(READONLY|LOADING)\b/.test(error.message) ? 2 : false),
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
  endpoint: string | RedisEndpoint,
  profile: RedisProfile,
  name = 'connector',
): ConnectorRedis {
  return new ConnectorRedis(redisOptions(endpoint, profile, name));
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
  'LOADING',
  'All sentinels are unreachable',
];

/** True for the errors ioredis (and BullMQ through it) raise while Redis is away. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    UNAVAILABLE.some((text) => error.message.includes(text))
  );
}
