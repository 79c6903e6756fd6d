import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import { AppError } from '../errors';
import { parseRedisUrl, type RedisTopology } from '../redis-url';
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

/**
 * What the stores, scripts and checks are given: one server (or the primary the Sentinels name),
 * or a Redis Cluster. Every command with keys works alike on both (a Cluster routes it by its
 * keys' slot); a keyless one (INFO, SCAN, WAIT, SCRIPT LOAD) goes through `primaries()`.
 */
export type RedisCommands = Redis | Cluster;

/** A connection the connector made (`createRedis`). */
export type ConnectorConnection = ConnectorRedis | ConnectorCluster;

/** Backs off to 2 s and never gives up: a restarted or promoted Redis is picked up again. */
const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 2000);

type Credentials = Pick<RedisTopology, 'username' | 'password' | 'tls'>;

/** The answers of a server that is no longer the primary, or not yet ready. */
const DEMOTED = /^(READONLY|LOADING)\b|WAIT cannot be used with replica instances/;

/** A node still loading its data: the one such answer worth waiting out on a Cluster node. */
const LOADING = /^LOADING\b/;

/** What every connection to a data node has, on any topology. */
function nodeOptions(credentials: Credentials, profile: RedisProfile, name: string): RedisOptions {
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

/**
 * Connection options for one server (redis://, rediss://), or the primary the Sentinels name
 * (redis+sentinel://), found again after every failover.
 */
export function redisOptions(
  endpoint: string | RedisEndpoint,
  profile: RedisProfile,
  name = 'connector',
): RedisOptions {
  const { url, sentinelPassword } = typeof endpoint === 'string' ? { url: endpoint } : endpoint;
  const topology = parseRedisUrl(url);
  if (topology.kind === 'cluster') {
    throw new Error('redisOptions: a cluster is described by clusterOptions');
  }
  return serverOptions(topology, sentinelPassword, profile, name);
}

/** The options of one server or a Sentinel group, its URL read already. */
function serverOptions(
  topology: Exclude<RedisTopology, { kind: 'cluster' }>,
  sentinelPassword: string | undefined,
  profile: RedisProfile,
  name: string,
): RedisOptions {
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
  return {
    ...where,
    ...nodeOptions(topology, profile, name),
    db: topology.db,
    retryStrategy: reconnectDelay,
    lazyConnect: false,
    ...(profile === 'producer' ? { enableOfflineQueue: false } : {}),
  };
}

/**
 * How long a command keeps being retried through a Cluster's failover (a node gone, CLUSTERDOWN,
 * TRYAGAIN, MOVED to the promoted replica): `retryDelayOnFailover × maxRedirections`. A worker's
 * command (a job moved to completed, say) must outlive the cluster's `cluster-node-timeout` plus
 * the election, or a finished job could be run again: 64 tries a second apart. A producer's
 * (an HTTP request's) gives up after about 3 s, and the request answers 503 REDIS_UNAVAILABLE.
 */
const CLUSTER_RETRIES: Record<RedisProfile, { delayMs: number; tries: number }> = {
  worker: { delayMs: 1000, tries: 64 },
  producer: { delayMs: 200, tries: 16 },
};

/** The options of a Redis Cluster (redis+cluster://), its seed nodes apart. */
export function clusterOptions(
  topology: Extract<RedisTopology, { kind: 'cluster' }>,
  profile: RedisProfile,
  name = 'connector',
): ClusterOptions {
  const retry = CLUSTER_RETRIES[profile];
  return {
    redisOptions: {
      ...nodeOptions(topology, profile, name),
      // A Cluster node's connection is bound to one address: reconnecting and resending there
      // after a demotion reaches the same replica again, endlessly (a WAIT sent to a node that
      // rejoined as a replica did, in the drill). The cluster's own redirections (MOVED, its
      // slot refresh) find the new primary; a demoted node's answer fails the command, which
      // its caller retries.
      reconnectOnError: (error) => (LOADING.test(error.message) ? 2 : false),
    },
    clusterRetryStrategy: reconnectDelay,
    // Every read from the primary that took the write: a replica may lag behind it.
    scaleReads: 'master',
    // Off: on a Cluster, ioredis's automatic pipelines mix slots in EVALSHA batches (ioredis
    // #2109) and keep sending to the old node after a slot moved (#2075).
    enableAutoPipelining: false,
    retryDelayOnFailover: retry.delayMs,
    retryDelayOnClusterDown: retry.delayMs,
    retryDelayOnTryAgain: retry.delayMs,
    maxRedirections: retry.tries,
    enableOfflineQueue: profile === 'worker',
    enableReadyCheck: true,
    slotsRefreshTimeout: 2000,
    lazyConnect: false,
    // With TLS, managed services (ElastiCache, MemoryDB) give nodes by host name, and the
    // certificate names the host, not its address: connect by the name the cluster gave.
    ...(topology.tls ? { dnsLookup: (address, lookup) => lookup(null, address) } : {}),
  };
}

/** Every connection of the connector is made here: producers, workers, the CLI, the checks. */
export function createRedis(
  endpoint: string | RedisEndpoint,
  profile: RedisProfile,
  name = 'connector',
): ConnectorConnection {
  const { url, sentinelPassword } = typeof endpoint === 'string' ? { url: endpoint } : endpoint;
  const topology = parseRedisUrl(url);
  if (topology.kind === 'cluster') {
    return new ConnectorCluster(topology.nodes, clusterOptions(topology, profile, name));
  }
  return new ConnectorRedis(serverOptions(topology, sentinelPassword, profile, name));
}

/**
 * ioredis arms its socket timeout when a command goes out and clears it only when data comes
 * in: a connection that closes with a command unanswered keeps the timer, which holds the
 * process up to its length on exit and, fired after a reconnect, destroys the new healthy socket
 * (its `this.stream`). The timer goes with the socket here.
 */
function forgetSocketTimerOnClose(client: Redis): void {
  client.on('close', () => {
    const timed = client as unknown as { socketTimeoutTimer?: ReturnType<typeof setTimeout> };
    clearTimeout(timed.socketTimeoutTimer);
    timed.socketTimeoutTimer = undefined;
  });
}

/**
 * Every connection of the connector, for two gaps between ioredis and BullMQ (and the socket
 * timer above):
 * - ioredis emits 'end' from a socket's close handler, so `disconnect()` on a client that is
 *   waiting to reconnect (no socket) stops the reconnecting but never ends it, and BullMQ's
 *   Worker.close(), which waits for 'end', waits forever (taskforcesh/bullmq#4656). Such a client
 *   here ends at once, as ioredis ends a client that never connected.
 * - BullMQ duplicates a worker's connection for its blocking reads; the copies are the same
 *   class and are remembered, so a shutdown that cannot wait drops them all with `disconnectAll`.
 */
export class ConnectorRedis extends Redis {
  private readonly copies: Redis[] = [];

  constructor(options: RedisOptions) {
    super(options);
    forgetSocketTimerOnClose(this);
  }

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

/**
 * A Cluster connection with the same two answers as ConnectorRedis: a Cluster waiting to
 * reconnect (every node gone) has no node whose close would end it, so `disconnect()` ends it at
 * once; BullMQ's copies (`duplicate()`, which BullMQ calls with an options object where ioredis
 * expects seed nodes: the seeds are kept) are remembered for `disconnectAll`. And one gap of its
 * own: `connect()` settles once the client is ready, however ioredis got it there (see there).
 */
export class ConnectorCluster extends Cluster {
  private readonly copies: Cluster[] = [];

  constructor(nodes: ClusterNode[], options: ClusterOptions) {
    super(nodes, options);
    // The cluster makes its node connections itself, after this returns.
    this.on('+node', (node: Redis) => forgetSocketTimerOnClose(node));
  }

  override disconnect(reconnect = false): void {
    // 'wait' makes ioredis run its close handling now: status 'end', queued commands rejected.
    if (!reconnect && this.status === 'reconnecting') this.status = 'wait';
    super.disconnect(reconnect);
  }

  /**
   * ioredis's connect(), settled by the client's own 'ready' and 'end' too. When the slots were
   * read but the ready check finds `cluster_state:fail` (a primary lost, its replica not yet
   * promoted), ioredis reconnects by itself, through a connect of its own, and leaves the first
   * one's promise pending for good, the client 'ready' a few seconds later. BullMQ's worker
   * awaits that promise after a blocking read went unanswered during a failover: its worker
   * stopped taking jobs, for good (the Cluster drill found it).
   */
  override connect(): Promise<void> {
    const attempt = super.connect();
    let onReady = (): void => undefined;
    let onEnd = (): void => undefined;
    const followed = new Promise<void>((resolve, reject) => {
      onReady = () => resolve();
      onEnd = () => reject(new Error('Connection is closed.'));
    });
    this.once('ready', onReady);
    this.once('end', onEnd);
    const settled = Promise.race([attempt, followed]);
    const stopFollowing = () => {
      this.off('ready', onReady);
      this.off('end', onEnd);
    };
    settled.then(stopFollowing, stopFollowing);
    return settled;
  }

  override duplicate(overrideStartupNodes: ClusterNode[] = [], overrideOptions = {}): Cluster {
    const seeds: ClusterNode[] = Array.isArray(overrideStartupNodes) ? overrideStartupNodes : [];
    const copy = new ConnectorCluster(seeds.length > 0 ? seeds : this.seeds(), {
      ...this.options,
      ...overrideOptions,
    });
    this.copies.push(copy);
    return copy;
  }

  /** Drops this connection and every copy at once, without waiting for Redis. */
  disconnectAll(): void {
    for (const client of [this, ...this.copies]) client.disconnect();
  }

  private seeds(): ClusterNode[] {
    // ioredis keeps its startup nodes private; the nodes it knows now are as good a seed.
    const known = this.nodes('all').map((node) => ({
      host: node.options.host ?? '127.0.0.1',
      port: node.options.port ?? 6379,
    }));
    return known.length > 0 ? known : this.startupSeeds;
  }

  private get startupSeeds(): ClusterNode[] {
    return (this as unknown as { startupNodes: ClusterNode[] }).startupNodes;
  }
}

/** Whether the connection is a Redis Cluster's. */
export function isCluster(redis: RedisCommands): redis is Cluster {
  return redis instanceof Cluster;
}

/**
 * The connections that take writes: the one server (or Sentinel's primary), or every primary of
 * a Cluster as it routes writes now. For the keyless commands a Cluster would send to any node.
 *
 * On a Cluster these are the nodes of its slot map (the first node of each slot), the map every
 * command is routed by, which a MOVED answer corrects at once. ioredis's own list of primaries
 * (`nodes('master')`) follows only its periodic and error-driven refreshes: after a failover it
 * can go on naming the promoted node a replica, and a node left out here would take writes no
 * WAIT covers. A primary whose connection is gone (a node that died) is not among them.
 */
export function primaries(redis: RedisCommands): Redis[] {
  if (!isCluster(redis)) return [redis];
  const owners = new Set<string>();
  for (const nodes of redis.slots) if (nodes?.[0]) owners.add(nodes[0]);
  if (owners.size === 0) return redis.nodes('master');
  const connections = connectionsByNodeKey(redis);
  return [...owners].flatMap((owner) => connections.get(owner) ?? []);
}

/**
 * The connection that takes the writes of `key`: the one server, or the Cluster primary its
 * slot is routed to now (see `primaries`); undefined on a Cluster that knows no live primary for
 * the slot (its node died and no other has been seen to take it yet).
 */
export function primaryFor(redis: RedisCommands, key: string): Redis | undefined {
  if (!isCluster(redis)) return redis;
  const owner = redis.slots[calculateSlot(key)]?.[0];
  return owner === undefined
    ? undefined
    : redis.nodes('all').find((node) => nodeKey(node) === owner);
}

/** A Cluster's node connections by the key its slot map names them with. */
function connectionsByNodeKey(cluster: Cluster): Map<string, Redis> {
  return new Map(cluster.nodes('all').map((node) => [nodeKey(node), node]));
}

/** How a Cluster's slot map names a node: `host:port`. */
function nodeKey(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

/**
 * Sends one raw command (as rate-limit-redis's cluster form gives it): routed by its keys, on a
 * Cluster to their slot's primary; a keyless SCRIPT LOAD goes to every primary, so the EVALSHA
 * that follows finds the script wherever its key lives (also on a replica promoted since).
 */
export function sendRawCommand(redis: RedisCommands) {
  return async (command: string[]): Promise<unknown> => {
    const [name = '', ...args] = command;
    if (name.toUpperCase() === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD') {
      const nodes = primaries(redis);
      if (nodes.length === 0) throw new Error("Cluster isn't ready: no primary known");
      const shas = await Promise.all(nodes.map((node) => node.call(name, ...args)));
      return shas[0];
    }
    return redis.call(name, ...args);
  };
}

/**
 * The keys matching `match`, in batches, from every primary (SCAN is keyless: on a Cluster each
 * primary holds its own slots' keys). A key may come twice, as SCAN promises at most that.
 */
export async function* scanPrimaries(
  redis: RedisCommands,
  match: string,
  count = 500,
): AsyncGenerator<string[]> {
  for (const node of primaries(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

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

/** Closes a connection politely, falling back to disconnect when Redis is unreachable. */
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
