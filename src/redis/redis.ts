import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type RedisTopology } from './redis-url';
import { LOADING, nodeOptions, reconnectDelay, type RedisProfile } from './redis-node-options';

export interface RedisEndpoint {
  url: string;
  sentinelPassword?: string;
}

export type ConnectorConnection = ConnectorRedis | ConnectorCluster;

/** Options for one server (redis://, rediss://), or the primary the Sentinels name (redis+sentinel://). */
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
          // ioredis's failoverDetector stays off (its default): its disconnect() on +switch-master,
          // while the client is reconnecting, ends the client for good (the drill hit it). A
          // promotion is seen anyway: a dead primary closes the socket, a demoted one closes its
          // clients' connections or answers READONLY.
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
 * How long a command keeps being retried through a Cluster's failover: `retryDelayOnFailover ×
 * maxRedirections`. A worker's (a job moved to completed) must outlive `cluster-node-timeout` plus
 * the election, or a finished job could run again; a producer's gives up after about 3 s (503).
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
      // A Cluster node's connection is bound to one address: resending there after a demotion
      // reaches the same replica, endlessly (the drill's WAIT did). The cluster's redirections
      // find the new primary; a demoted node's answer fails the command, which its caller retries.
      reconnectOnError: (error) => (LOADING.test(error.message) ? 2 : false),
    },
    clusterRetryStrategy: reconnectDelay,
    // A replica may lag behind the primary that took the write.
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
    // With TLS, managed services give nodes by host name, and the certificate names the host.
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
 * ioredis clears its socket timeout only when data comes in: a connection closed with a command
 * unanswered keeps the timer, which holds the process up on exit and, fired after a reconnect,
 * destroys the new healthy socket. The timer goes with the socket here.
 */
function forgetSocketTimerOnClose(client: Redis): void {
  client.on('close', () => {
    const timed = client as unknown as { socketTimeoutTimer?: ReturnType<typeof setTimeout> };
    clearTimeout(timed.socketTimeoutTimer);
    timed.socketTimeoutTimer = undefined;
  });
}

/**
 * Every connection of the connector, for two gaps between ioredis and BullMQ:
 * - `disconnect()` on a client waiting to reconnect (no socket) never emits 'end', which BullMQ's
 *   Worker.close() waits for, forever (taskforcesh/bullmq#4656): such a client here ends at once.
 * - BullMQ's copies of a worker's connection (`duplicate()`) are remembered, so a shutdown that
 *   cannot wait drops them all with `disconnectAll`.
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

  disconnectAll(): void {
    for (const client of [this, ...this.copies]) client.disconnect();
  }
}

/**
 * A Cluster connection with the same two answers as ConnectorRedis (BullMQ calls `duplicate()`
 * with options where ioredis expects seed nodes: the seeds are kept), and a `connect()` that
 * settles once the client is ready, however ioredis got it there.
 */
export class ConnectorCluster extends Cluster {
  private readonly copies: Cluster[] = [];

  constructor(nodes: ClusterNode[], options: ClusterOptions) {
    super(nodes, options);
    // The cluster makes its node connections itself, after this returns.
    this.on('+node', (node: Redis) => forgetSocketTimerOnClose(node));
  }

  override disconnect(reconnect = false): void {
    if (!reconnect && this.status === 'reconnecting') this.status = 'wait';
    super.disconnect(reconnect);
  }

  /**
   * Settled by the client's own 'ready' and 'end' too: when the ready check finds
   * `cluster_state:fail`, ioredis reconnects through a connect of its own and leaves the first
   * one's promise pending for good; a BullMQ worker awaiting it stopped taking jobs (the drill).
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

  disconnectAll(): void {
    for (const client of [this, ...this.copies]) client.disconnect();
  }

  private seeds(): ClusterNode[] {
    // ioredis keeps its startup nodes private; the nodes it knows now are as good a seed.
    const known = this.nodes('all').map((node) => ({
      host: node.options.host ?? '127.0.0.1',
      port: node.options.port ?? 6379,
    }));
    return known.length > 0
      ? known
      : (this as unknown as { startupNodes: ClusterNode[] }).startupNodes;
  }
}

export { isCluster, primaries, primaryFor, sendRawCommand, scanPrimaries } from './redis-nodes';
export { closeRedis, isRedisUnavailable, pingRedis, waitForRedis } from './redis-health';
export { SOCKET_TIMEOUT_MS, type RedisProfile } from './redis-node-options';
export type { RedisCommands } from './redis-nodes';
