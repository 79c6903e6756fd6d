import type { RedisOptions } from 'ioredis';
import type { RedisTopology } from '../redis-url';

/**
 * Two connection profiles, as BullMQ advises: producers (HTTP handlers, readiness checks) fail
 * fast when Redis is away; workers wait for it forever (`maxRetriesPerRequest: null`).
 */
export type RedisProfile = 'producer' | 'worker';

/** Backs off to 2 s and never gives up: a restarted or promoted Redis is picked up again. */
export const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 2000);

export type Credentials = Pick<RedisTopology, 'username' | 'password' | 'tls'>;

/** The answers of a server that is no longer the primary, or not yet ready. */
const DEMOTED = /^(READONLY|LOADING)\b|WAIT cannot be used with replica instances/;

/** A node still loading its data: the one such answer worth waiting out on a Cluster node. */
export const LOADING = /^LOADING\b/;

/** What every connection to a data node has, on any topology. */
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
    // After a failover the old primary answers READONLY (a write) or refuses WAIT (a replica
    // cannot), a replica still loading its data LOADING: reconnect (to the primary now) and send
    // the command again (2), not fail it.
    reconnectOnError: (error) => (DEMOTED.test(error.message) ? 2 : false),
    // On disconnect ioredis ends the socket and destroys it if it has not closed after this long;
    // a socket that died already never closes again, so its 2 s default only delays exit.
    disconnectTimeout: 500,
    // A primary that hangs rather than dies (a stalled machine, a partition that drops packets
    // without a reset) keeps its sockets open: a command unanswered for this long destroys the
    // socket, and the client reconnects (through the Sentinels, to the primary they promoted)
    // and sends its unanswered commands again. Longer than the longest command we block on:
    // WAIT's 2 s on a producer, BullMQ's blocking reads (at most 10 s) on a worker.
    socketTimeout: SOCKET_TIMEOUT_MS[profile],
    ...(profile === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, connectTimeout: 2000 }),
  };
}

/** How long a command may go unanswered before its connection is taken for dead (see above). */
export const SOCKET_TIMEOUT_MS: Record<RedisProfile, number> = { producer: 5000, worker: 20_000 };
