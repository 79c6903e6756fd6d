import calculateSlot from 'cluster-key-slot';
import { Cluster, type Redis } from 'ioredis';

/**
 * What the stores, scripts and checks are given: one server (or the primary the Sentinels name),
 * or a Redis Cluster. Every command with keys works alike on both (a Cluster routes it by its
 * keys' slot); a keyless one (INFO, SCAN, WAIT, SCRIPT LOAD) goes through `primaries()`.
 */
export type RedisCommands = Redis | Cluster;

/*
 * Which node of a topology a command or a key goes to: the one server, or a Cluster's primaries
 * as its slot map routes them now.
 */

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
