import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/infra/free-port';
import { eventually, startHarness, type Harness } from './harness';

const MASTER = 'mymaster';

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
   * Starts a killed server again on its port, with its data: the Sentinels turn it into a replica
   * of the new primary; resolves once it is one, in sync.
   */
  restart(port: number): Promise<void>;
  /** Kills the current primary with SIGKILL; resolves with its port. */
  killPrimary(): Promise<number>;
  /** Waits until the Sentinels name another primary than `oldPort`; resolves with its port. */
  promoted(oldPort: number): Promise<number>;
  close(): Promise<void>;
}

/** Answers one command of a short-lived client (closed after), or throws. */
async function ask<T>(port: number, command: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await command(client);
  } finally {
    client.disconnect();
  }
}

/**
 * Starts a primary (append-only, noeviction), a replica of it, and three Sentinels watching it
 * (quorum 2, down after 1 s, failover timeout 5 s), as README's Redis section and
 * ../shared/REDIS.md describe; resolves once the Sentinels see the replica.
 */
export async function startSentinelGroup(): Promise<SentinelGroup> {
  const dir = mkdtempSync(path.join(tmpdir(), 'connector-sentinel-'));
  const servers = new Map<number, ChildProcess>();
  const sentinels: ChildProcess[] = [];
  const serverArgs = (port: number) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    path.join(dir),
    '--dbfilename',
    `dump-${port}.rdb`,
    '--appendonly',
    'yes',
    '--appendfilename',
    `aof-${port}.aof`,
    '--appenddirname',
    `aof-${port}`,
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
  ];
  const primary = await freePort();
  servers.set(primary, spawn('redis-server', serverArgs(primary), { stdio: 'ignore' }));
  await eventually(() => ask(primary, (c) => c.ping()).catch(() => undefined), 5000, 'primary');
  const replica = await freePort();
  servers.set(
    replica,
    spawn('redis-server', [...serverArgs(replica), '--replicaof', '127.0.0.1', String(primary)], {
      stdio: 'ignore',
    }),
  );
  const sentinelPorts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const conf = path.join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${MASTER} 1000`,
        `sentinel failover-timeout ${MASTER} 5000`,
        `sentinel parallel-syncs ${MASTER} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }));
    sentinelPorts.push(port);
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
  const stopAll = async (children: ChildProcess[]) =>
    Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
  return {
    url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER}`,
    primaryPort,
    calls: async (command) => {
      const info = await ask(await primaryPort(), (c) => c.info('commandstats'));
      return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
    },
    synced: async () => {
      const port = await primaryPort();
      await eventually(
        async () => {
          const info = await ask(port, (c) => c.info('replication'));
          const own = Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
          const replicaOffset = Number(/slave0:.*offset=(\d+)/.exec(info)?.[1]);
          return Number.isFinite(own) && replicaOffset >= own ? true : undefined;
        },
        10_000,
        'the replica to catch up',
      );
    },
    restart: async (port) => {
      servers.set(port, spawn('redis-server', serverArgs(port), { stdio: 'ignore' }));
      await eventually(
        async () => {
          const info = await ask(port, (c) => c.info('replication')).catch(() => '');
          return /role:slave/.test(info) && /master_link_status:up/.test(info) ? true : undefined;
        },
        30_000,
        `the server on ${port} to rejoin as a replica`,
      );
    },
    killPrimary: async () => {
      const port = await primaryPort();
      const child = servers.get(port);
      if (!child) throw new Error(`no server of ours on ${port}`);
      await stopAll([child]);
      return port;
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
      await stopAll([...sentinels, ...servers.values()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The whole product on a Sentinel group: the group, and a harness whose REDIS_URL is the group's
 * redis+sentinel:// URL (the harness neither stops nor restarts it); `stop` ends both, the
 * connector first. A half-started pair is ended before the error is thrown.
 */
export async function startHarnessOnSentinel(
  options: Omit<Parameters<typeof startHarness>[0] & object, 'redis' | 'privateRedis'> = {},
): Promise<{ group: SentinelGroup; h: Harness; stop(): Promise<void> }> {
  const group = await startSentinelGroup();
  const h = await startHarness({
    ...options,
    redis: {
      url: group.url,
      private: false,
      start: () => Promise.reject(new Error('a Sentinel group is not restarted')),
      stop: () => Promise.reject(new Error('a Sentinel group is not stopped')),
      close: async () => {},
    },
  }).catch(async (error: unknown) => {
    await group.close();
    throw error;
  });
  return {
    group,
    h,
    stop: async () => {
      await h.stop();
      await group.close();
    },
  };
}
