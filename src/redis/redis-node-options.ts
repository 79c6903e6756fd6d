import type { RedisOptions } from 'ioredis';
import type { RedisTopology } from './redis-url';

/**
 * Two connection profiles, as BullMQ advises: producers (HTTP handlers, readiness checks) fail
 * fast when Redis is away; workers wait for it forever (`maxRetriesPerRequest: null`).
 */
export type RedisProfile = 'producer' | 'worker';

/** Backs off to 2 s and never gives up: a restarted or promoted Redis is picked up again. */
export const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 2000);

export type Credentials = Pick<RedisTopology, 'username' | 'password' | 'tls'>;

const DEMOTED = /^(READONLY|LOADING)\b|WAIT cannot be used with replica instances/;

/** The one such answer worth waiting out on a Cluster node. */
export const LOADING = /^LOADING\b/;

export function nodeOptions(
  credentials: Credentials,
  profile: RedisProfile,
  name: string,
): RedisOptions {
  return {
    username: credentials.username,
    password: credentials.password,
    tls: credentials.tls ? {} : undefined,
    connectionName: `${name}-${profile}`,
    // After a failover the old primary answers READONLY or refuses WAIT, a replica still loading
    // LOADING: reconnect (to the primary now) and send the command again (2), not fail it.
    reconnectOnError: (error) => (DEMOTED.test(error.message) ? 2 : false),
    // A socket that died already never closes again: ioredis's 2 s default only delays exit.
    disconnectTimeout: 500,
    // A primary that hangs rather than dies keeps its sockets open: a command unanswered this
    // long destroys the socket, and the client reconnects (to the primary the Sentinels promoted)
    // and resends. Longer than what we block on: WAIT's 2 s, BullMQ's blocking reads (10 s).
    socketTimeout: SOCKET_TIMEOUT_MS[profile],
    ...(profile === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, connectTimeout: 2000 }),
  };
}

export const SOCKET_TIMEOUT_MS: Record<RedisProfile, number> = { producer: 5000, worker: 20_000 };
