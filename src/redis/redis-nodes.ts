import calculateSlot from 'cluster-key-slot';
import { Cluster, type Redis } from 'ioredis';

/**
 * What the stores, scripts and checks are given: one server (or the primary the Sentinels name),
 * or a Redis Cluster. Every command with keys works alike on both (a Cluster routes it by its
 * keys' slot); a keyless one (INFO, SCAN, WAIT, SCRIPT LOAD) goes through `primaries()`.
 */
export type RedisCommands = Redis | Cluster;

export function isCluster(redis: RedisCommands): redis is Cluster {
  return redis instanceof Cluster;
}

/**
 * The connections that take writes, for the keyless commands: the one server, or a Cluster's
 * live primaries by its slot map (which a MOVED corrects at once). ioredis's `nodes('master')`
 * can go on naming a promoted node a replica after a failover, and a primary left out would take
 * writes no WAIT covers.
 */
export function primaries(redis: RedisCommands): Redis[] {
  if (!isCluster(redis)) return [redis];
  const owners = new Set<string>();
  for (const nodes of redis.slots) if (nodes?.[0]) owners.add(nodes[0]);
  if (owners.size === 0) return redis.nodes('master');
  const connections = new Map(redis.nodes('all').map((node) => [nodeKey(node), node]));
  return [...owners].flatMap((owner) => connections.get(owner) ?? []);
}

/** The connection that takes the writes of `key` (see `primaries`); undefined while its slot has no live primary. */
export function primaryFor(redis: RedisCommands, key: string): Redis | undefined {
  if (!isCluster(redis)) return redis;
  const owner = redis.slots[calculateSlot(key)]?.[0];
  return owner === undefined
    ? undefined
    : redis.nodes('all').find((node) => nodeKey(node) === owner);
}

function nodeKey(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

/**
 * Sends one raw command (rate-limit-redis's form), routed by its keys; a keyless SCRIPT LOAD goes
 * to every primary, so the EVALSHA that follows finds the script wherever its key lives.
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

/** The keys matching `match`, in batches, from every primary; a key may come twice (SCAN's promise). */
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
