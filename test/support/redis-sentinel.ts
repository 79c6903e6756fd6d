import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { spawnOnFreePorts } from '../../src/demo/private-redis';
import { eventually, type Harness } from './harness';
import {
  ask,
  commandCalls,
  groupServerArgs,
  killAll,
  listedReplicas,
  replicasCaughtUp,
  startHarnessOn,
} from './redis-topology';

const MASTER = 'mymaster';

/** How long a restarted server may take to be a replica again (see `rejoined`). */
const REJOIN_DEADLINE_MS = 60_000;

/** A primary with a replica and three Sentinels, each a real redis-server on loopback. */
export interface SentinelGroup {
  /** REDIS_URL for it: `redis+sentinel://127.0.0.1:<s1>,.../mymaster`. */
  url: string;
  /** The port of the server the Sentinels name as primary now. */
  primaryPort(): Promise<number>;
  /** How many times the current primary has run `command` (INFO commandstats). */
  calls(command: string): Promise<number>;
  /** Waits until the replica holds every write the primary has (their offsets meet). */
  synced(): Promise<void>;
  /**
   * Starts a killed server again on its port, with its data, as a replica of the primary the
   * Sentinels name now; resolves once it is one, in sync.
   */
  restart(port: number): Promise<void>;
  /** Kills the current primary with SIGKILL; resolves with its port. */
  killPrimary(): Promise<number>;
  /**
   * Freezes the current primary (SIGSTOP: its sockets stay open, nothing answers: a stalled
   * machine); resolves with its port and the function that thaws it (SIGCONT) and waits until the
   * Sentinels have made it a replica of the primary they promoted, in sync.
   */
  freezePrimary(): Promise<{ port: number; thaw(): Promise<void> }>;
  /**
   * Freezes every replica (SIGSTOP: connected, never answering, as a replica on a stalled
   * machine); resolves with the function that thaws them (SIGCONT).
   */
  freezeReplicas(): Promise<() => void>;
  /** Waits until the Sentinels name another primary than `oldPort`; resolves with its port. */
  promoted(oldPort: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts a primary (append-only, noeviction), a replica of it, and three Sentinels watching it
 * (quorum 2, down after 1 s, failover timeout 5 s), as docs/redis.md describes; resolves once the
 * Sentinels see the replica.
 */
export async function startSentinelGroup(): Promise<SentinelGroup> {
  const dir = mkdtempSync(path.join(tmpdir(), 'connector-sentinel-'));
  const servers = new Map<number, ChildProcess>();
  const sentinels: ChildProcess[] = [];
  const serverArgs = (port: number) => [
    ...groupServerArgs(dir, port),
    ...['--logfile', path.join(dir, `log-${port}.log`)],
  ];
  const taken = new Set<number>();
  const serverOn = async (...replicaOf: string[]): Promise<number> => {
    const { ports, child } = await spawnOnFreePorts(
      1,
      ([port = 0]) =>
        spawn('redis-server', [...serverArgs(port), ...replicaOf], { stdio: 'ignore' }),
      taken,
    );
    const [port = 0] = ports;
    servers.set(port, child);
    return port;
  };
  const sentinelPorts: number[] = [];
  let replica = 0;
  try {
    const primary = await serverOn();
    replica = await serverOn('--replicaof', '127.0.0.1', String(primary));
    for (let i = 0; i < 3; i++) {
      const { ports, child } = await spawnOnFreePorts(
        1,
        ([port = 0]) => {
          const conf = path.join(dir, `sentinel-${port}.conf`);
          writeFileSync(
            conf,
            [
              `port ${port}`,
              'bind 127.0.0.1',
              `dir ${dir}`,
              `logfile ${path.join(dir, `sentinel-${port}.log`)}`,
              `sentinel monitor ${MASTER} 127.0.0.1 ${primary} 2`,
              `sentinel down-after-milliseconds ${MASTER} 1000`,
              `sentinel failover-timeout ${MASTER} 5000`,
              `sentinel parallel-syncs ${MASTER} 1`,
              '',
            ].join('\n'),
          );
          return spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
        },
        taken,
      );
      sentinels.push(child);
      sentinelPorts.push(...ports);
    }
  } catch (error) {
    await killAll([...servers.values(), ...sentinels]);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const sentinelAnswer = <T>(command: (client: Redis) => Promise<T>) =>
    ask(sentinelPorts[0] ?? 0, command);
  // Ready: the replica is in sync and every Sentinel knows it and the other Sentinels.
  await eventually(
    async () => {
      const role = await ask(replica, (c) => c.info('replication')).catch(() => '');
      if (!/master_link_status:up/.test(role)) return undefined;
      for (const port of sentinelPorts) {
        const known = await ask(port, (c) => c.call('SENTINEL', 'replicas', MASTER)).catch(
          () => [],
        );
        const others = await ask(port, (c) => c.call('SENTINEL', 'sentinels', MASTER)).catch(
          () => [],
        );
        if ((known as unknown[]).length < 1 || (others as unknown[]).length < 2) return undefined;
      }
      return true;
    },
    30_000,
    'the Sentinels to see the replica and each other',
  );
  const primaryPort = async (): Promise<number> => {
    const [, port] = (await sentinelAnswer((c) =>
      c.call('SENTINEL', 'get-master-addr-by-name', MASTER),
    )) as [string, string];
    return Number(port);
  };
  // Rejoined as the primary sees it too: the replica says its link is up a moment before the
  // primary marks it online, and the connector waits only on replicas the primary calls online.
  const rejoined = async (port: number) => {
    // What was seen last, for the message of a rejoin that does not come.
    let seen = 'nothing yet';
    await eventually(
      async () => {
        const info = await ask(port, (c) => c.info('replication')).catch(
          (error: unknown) => `unanswered: ${String(error)}`,
        );
        const own = `${port}: ${/role:\w+/.exec(info)?.[0] ?? info}, ${/master_port:\d+/.exec(info)?.[0] ?? ''} ${/master_link_status:\w+/.exec(info)?.[0] ?? ''}`;
        if (!/role:slave/.test(info) || !/master_link_status:up/.test(info)) {
          seen = own;
          return undefined;
        }
        const primaryNow = await primaryPort();
        const primary = await ask(primaryNow, (c) => c.info('replication')).catch(() => '');
        const listed = listedReplicas(primary);
        seen = `${own}; the primary ${primaryNow} lists ${JSON.stringify(listed)}`;
        return listed.some((replica) => replica.port === port && replica.state === 'online')
          ? true
          : undefined;
      },
      // The Sentinels turn a restarted primary into a replica some 10 s after it is back (they
      // wait 8 s for news of another failover), and a Sentinel in TILT mode (its timer late by
      // more than 2 s: a machine that stalled) acts on nothing for 30 s.
      REJOIN_DEADLINE_MS,
      `the server on ${port} to rejoin as a replica`,
    ).catch((error: unknown) => {
      const tilts = sentinelPorts.flatMap((sentinel) =>
        readFileSync(path.join(dir, `sentinel-${sentinel}.log`), 'utf8')
          .split('\n')
          .filter((line) => /[+-]tilt/.test(line)),
      );
      throw new Error(
        `${String(error)} (last seen: ${seen}; the Sentinels' TILT: ${tilts.join(' | ') || 'none'})`,
      );
    });
  };
  return {
    url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER}`,
    primaryPort,
    calls: async (command) => {
      const info = await ask(await primaryPort(), (c) => c.info('commandstats'));
      return commandCalls(info, command);
    },
    synced: async () => {
      const port = await primaryPort();
      await eventually(
        async () => {
          const info = await ask(port, (c) => c.info('replication'));
          return replicasCaughtUp(info) ? true : undefined;
        },
        10_000,
        'the replica to catch up',
      );
    },
    restart: async (port) => {
      // Started as a replica of the primary the Sentinels name, as a deployment's start script
      // does (the Bitnami chart's asks `SENTINEL get-master-addr-by-name` first): it does not
      // wait on the Sentinels to convert it. Their converting a stale primary is what thaw tests.
      const primaryNow = await primaryPort();
      servers.set(
        port,
        spawn(
          'redis-server',
          [...serverArgs(port), '--replicaof', '127.0.0.1', String(primaryNow)],
          {
            stdio: 'ignore',
          },
        ),
      );
      await rejoined(port);
    },
    killPrimary: async () => {
      const port = await primaryPort();
      const child = servers.get(port);
      if (!child) throw new Error(`no server of ours on ${port}`);
      await killAll([child]);
      return port;
    },
    freezePrimary: async () => {
      const port = await primaryPort();
      const child = servers.get(port);
      if (!child) throw new Error(`no server of ours on ${port}`);
      child.kill('SIGSTOP');
      return {
        port,
        thaw: async () => {
          child.kill('SIGCONT');
          await rejoined(port);
        },
      };
    },
    freezeReplicas: async () => {
      const primaryNow = await primaryPort();
      const replicas = [...servers.entries()]
        .filter(([port, child]) => port !== primaryNow && child.exitCode === null)
        .map(([, child]) => child);
      for (const child of replicas) child.kill('SIGSTOP');
      return () => {
        for (const child of replicas) child.kill('SIGCONT');
      };
    },
    promoted: (oldPort) =>
      eventually(
        async () => {
          const port = await primaryPort().catch(() => oldPort);
          return port !== oldPort ? port : undefined;
        },
        30_000,
        'the Sentinels to promote the replica',
      ),
    close: async () => {
      await killAll([...sentinels, ...servers.values()]);
      // KEEP_SENTINEL_DIR=1 keeps the logs (log-<port>.log, sentinel-<port>.log) for a look.
      if (!process.env.KEEP_SENTINEL_DIR) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The whole product on a Sentinel group of its own (see startHarnessOn). */
export async function startHarnessOnSentinel(
  options: Parameters<typeof startHarnessOn>[1] = {},
): Promise<{ group: SentinelGroup; h: Harness; stop(): Promise<void> }> {
  const group = await startSentinelGroup();
  return { group, ...(await startHarnessOn(group, options)) };
}
