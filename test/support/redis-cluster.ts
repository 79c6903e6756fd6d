import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import calculateSlot from 'cluster-key-slot';
import { spawnOnFreePorts } from '../../src/demo/private-redis';
import { eventually, type Harness } from './harness';
import {
  ask,
  commandCalls,
  groupServerArgs,
  killAll,
  replicasCaughtUp,
  startHarnessOn,
} from './redis-topology';

/** Three primaries with a replica each, every one a real redis-server on loopback. */
export interface RedisClusterGroup {
  /** REDIS_URL for it: `redis+cluster://127.0.0.1:<p1>,<p2>,<p3>` (the first primaries). */
  url: string;
  /** The port of the primary that serves `key`'s slot now. */
  primaryOf(key: string): Promise<number>;
  /** The ports of the primaries now. */
  primaries(): Promise<number[]>;
  /** The keys matching `match` (SCAN's glob), from every primary. */
  keys(match: string): Promise<string[]>;
  /** How many times the primaries together have run `command` (INFO commandstats). */
  calls(command: string): Promise<number>;
  /** Waits until every replica holds every write of its primary (their offsets meet). */
  synced(): Promise<void>;
  /** Kills the primary serving `key`'s slot with SIGKILL; resolves with its port. */
  killPrimaryOf(key: string): Promise<number>;
  /**
   * Holds the replicas of `key`'s primary from failing it over on their own
   * (`cluster-replica-no-failover`), so a test sees the dead primary for as long as it needs;
   * resolves with the release, after which the cluster promotes one as it would have.
   */
  holdFailoverOf(key: string): Promise<() => Promise<void>>;
  /** Waits until another node than `oldPort` serves `key`'s slot, the cluster whole again. */
  promoted(key: string, oldPort: number): Promise<number>;
  /**
   * Starts a killed node again on its ports, with its data and its node id: the cluster makes it
   * a replica of the node promoted in its place; resolves once it is one, in sync.
   */
  restart(port: number): Promise<void>;
  close(): Promise<void>;
}

interface NodeLine {
  id: string;
  port: number;
  primary: boolean;
  failed: boolean;
  /** A replica's primary's id ('-' for a primary). */
  primaryId: string;
  slots: Array<[number, number]>;
}

/** `CLUSTER NODES`, as one node sees the cluster. */
function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', address = '', flags = '', primaryId = '-', , , , , ...ranges] =
        line.split(' ');
      const slots = ranges
        .filter((range) => !range.startsWith('['))
        .map((range): [number, number] => {
          const [from, to = from] = range.split('-');
          return [Number(from), Number(to)];
        });
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)?.[1]),
        primary: flags.split(',').includes('master'),
        failed: /fail/.test(flags),
        primaryId,
        slots,
      };
    });
}

/**
 * Starts six cluster nodes (append-only, noeviction, `cluster-node-timeout` 2 s, the bus on a
 * port of its own) and joins them with `redis-cli --cluster create ... --cluster-replicas 1`, as
 * docs/redis.md describes; resolves once every node says the cluster is ok and every replica is
 * in sync. With `partial: true` the nodes serve the slots still covered while another primary is
 * down (`cluster-require-full-coverage no`); by default, as Redis ships, a primary marked failed
 * stops the whole cluster (CLUSTERDOWN) until its replica is promoted.
 */
export async function startRedisCluster(
  options: { partial?: boolean } = {},
): Promise<RedisClusterGroup> {
  const dir = mkdtempSync(path.join(tmpdir(), 'connector-cluster-'));
  const nodes = new Map<number, { bus: number; child?: ChildProcess }>();
  const spawnNode = (port: number, bus: number): ChildProcess =>
    spawn(
      'redis-server',
      [
        ...groupServerArgs(dir, port),
        '--cluster-port',
        String(bus),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '2000',
        ...(options.partial ? ['--cluster-require-full-coverage', 'no'] : []),
        // A new replica's first copy starts at once, not after the 5 s diskless default.
        '--repl-diskless-sync-delay',
        '0',
        '--logfile',
        `log-${port}.log`,
      ],
      { stdio: 'ignore' },
    );
  const ports: number[] = [];
  const taken = new Set<number>();
  try {
    for (let i = 0; i < 6; i++) {
      const {
        ports: [port = 0, bus = 0],
        child,
      } = await spawnOnFreePorts(2, ([port = 0, bus = 0]) => spawnNode(port, bus), taken);
      nodes.set(port, { bus, child });
      ports.push(port);
    }
    await promisify(execFile)('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
  } catch (error) {
    await killAll([...nodes.values()].flatMap((node) => (node.child ? [node.child] : [])));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const running = () =>
    [...nodes.entries()].filter(
      ([, node]) => node.child?.exitCode === null && node.child.signalCode === null,
    );
  const view = async (): Promise<NodeLine[]> => {
    for (const [port] of running()) {
      const text = await ask(port, (c) => c.call('CLUSTER', 'NODES')).catch(() => undefined);
      if (typeof text === 'string') return parseNodes(text);
    }
    throw new Error('no cluster node answers');
  };
  const primaries = async () =>
    (await view()).filter((node) => node.primary && !node.failed).map((node) => node.port);
  const primaryOf = async (key: string): Promise<number> => {
    const slot = calculateSlot(key);
    const owner = (await view()).find(
      (node) =>
        node.primary && !node.failed && node.slots.some(([from, to]) => slot >= from && slot <= to),
    );
    if (!owner) throw new Error(`no primary serves slot ${slot}`);
    return owner.port;
  };
  const whole = async (): Promise<boolean> => {
    for (const [port] of running()) {
      const info = await ask(port, (c) => c.call('CLUSTER', 'INFO')).catch(() => '');
      if (!/cluster_state:ok/.test(String(info))) return false;
    }
    return true;
  };
  const synced = async (): Promise<void> => {
    await eventually(
      async () => {
        for (const port of await primaries()) {
          const info = await ask(port, (c) => c.info('replication'));
          if (!replicasCaughtUp(info)) return undefined;
        }
        return true;
      },
      15_000,
      'every replica to catch up',
    );
  };
  await eventually(async () => ((await whole()) ? true : undefined), 30_000, 'the cluster to form');
  await synced();
  return {
    url: `redis+cluster://${ports
      .slice(0, 3)
      .map((port) => `127.0.0.1:${port}`)
      .join(',')}`,
    primaryOf,
    primaries,
    keys: async (match) => {
      const found: string[] = [];
      for (const port of await primaries()) {
        found.push(...(await ask(port, (c) => c.keys(match))));
      }
      return found;
    },
    calls: async (command) => {
      let total = 0;
      for (const port of await primaries()) {
        const info = await ask(port, (c) => c.info('commandstats'));
        total += commandCalls(info, command);
      }
      return total;
    },
    synced,
    killPrimaryOf: async (key) => {
      const port = await primaryOf(key);
      const child = nodes.get(port)?.child;
      if (!child) throw new Error(`no node of ours on ${port}`);
      await killAll([child]);
      return port;
    },
    holdFailoverOf: async (key) => {
      const port = await primaryOf(key);
      const nodesNow = await view();
      const id = nodesNow.find((node) => node.port === port)?.id;
      const replicas = nodesNow.filter((node) => node.primaryId === id).map((node) => node.port);
      if (replicas.length === 0) throw new Error(`the primary on ${port} has no replica`);
      const set = (value: string) =>
        Promise.all(
          replicas.map((replica) =>
            ask(replica, (c) => c.call('CONFIG', 'SET', 'cluster-replica-no-failover', value)),
          ),
        );
      await set('yes');
      return async () => {
        await set('no');
      };
    },
    promoted: (key, oldPort) =>
      eventually(
        async () => {
          const port = await primaryOf(key).catch(() => oldPort);
          return port !== oldPort && (await whole()) ? port : undefined;
        },
        30_000,
        'the cluster to promote a replica',
      ),
    restart: async (port) => {
      const node = nodes.get(port);
      if (!node) throw new Error(`no node of ours on ${port}`);
      node.child = spawnNode(port, node.bus);
      await eventually(
        async () => {
          const info = await ask(port, (c) => c.info('replication')).catch(() => '');
          return /role:slave/.test(info) && /master_link_status:up/.test(info) && (await whole())
            ? true
            : undefined;
        },
        30_000,
        `the node on ${port} to rejoin as a replica`,
      );
    },
    close: async () => {
      await killAll([...nodes.values()].flatMap((node) => (node.child ? [node.child] : [])));
      // KEEP_CLUSTER_DIR=1 keeps the nodes' logs (log-<port>.log) for a look after a failure.
      if (!process.env.KEEP_CLUSTER_DIR) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The whole product on a Redis Cluster of its own (see startHarnessOn). */
export async function startHarnessOnCluster(
  options: Parameters<typeof startHarnessOn>[1] = {},
): Promise<{ cluster: RedisClusterGroup; h: Harness; stop(): Promise<void> }> {
  const cluster = await startRedisCluster();
  return { cluster, ...(await startHarnessOn(cluster, options)) };
}
