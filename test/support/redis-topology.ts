import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { RedisCommands } from '../../src/redis/redis';
import { eventually, startHarness, type Harness } from './harness';

/** Answers one command of a short-lived client to a server on loopback (closed after), or throws. */
export async function ask<T>(port: number, command: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await command(client);
  } finally {
    client.disconnect();
  }
}

/** How many times the server ran `command`, from its `INFO commandstats` answer. */
export function commandCalls(commandstats: string, command: string): number {
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(commandstats)?.[1] ?? 0);
}

/** A replica as its primary's `INFO replication` lists it. */
export interface ListedReplica {
  port: number;
  /** `online` once in sync; `wait_bgsave` or `send_bulk` while it takes its first copy. */
  state: string;
  offset: number;
}

/** The replicas a primary's `INFO replication` answer lists, in its order (slave0 first). */
export function listedReplicas(replication: string): ListedReplica[] {
  return [...replication.matchAll(/^slave\d+:(.*)$/gm)].map(([, fields = '']) => {
    const field = (name: string) => new RegExp(`\\b${name}=([^,\\s]*)`).exec(fields)?.[1] ?? '';
    return { port: Number(field('port')), state: field('state'), offset: Number(field('offset')) };
  });
}

/**
 * True when a primary's `INFO replication` lists a replica, and every one it lists is online (as
 * the connector counts them: the primary's view, not the replica's) with all its writes.
 */
export function replicasCaughtUp(replication: string): boolean {
  const own = Number(/^master_repl_offset:(\d+)/m.exec(replication)?.[1]);
  const replicas = listedReplicas(replication);
  return (
    Number.isFinite(own) &&
    replicas.length > 0 &&
    replicas.every((replica) => replica.state === 'online' && replica.offset >= own)
  );
}

/**
 * A redis-server of a group on loopback, as README's Redis section asks of a production one:
 * append-only, `noeviction`; its files named by its port in the group's folder.
 */
export function groupServerArgs(dir: string, port: number): string[] {
  return [
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    [
      '--appendonly',
      'yes',
      '--appendfilename',
      `aof-${port}.aof`,
      '--appenddirname',
      `aof-${port}`,
    ],
    ['--dbfilename', `dump-${port}.rdb`, '--save', ''],
    ['--maxmemory-policy', 'noeviction'],
  ].flat();
}

/**
 * The processes `pid` forked and that still run (a redis-server's rewrite of its append-only
 * file, say); none where /proc cannot tell.
 */
function forksOf(pid: number | undefined): number[] {
  if (!pid) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Whether process `pid` has ended: gone, dead or a zombie (it runs no more; a fork orphaned by its
 * server's death is reaped by init, not by us).
 */
function ended(pid: number): boolean {
  try {
    // The state follows the command's name in parentheses, which may itself hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true;
  }
}

/** Kills one child with SIGKILL, and what it had forked; resolves once all of them have ended. */
async function killWithForks(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const forks = forksOf(child.pid);
  child.kill('SIGKILL');
  for (const fork of forks) {
    try {
      process.kill(fork, 'SIGKILL');
    } catch {
      // Ended already.
    }
  }
  await exited;
  await eventually(() => forks.every(ended) || undefined, 10_000, "a killed server's forks to end");
}

/**
 * Kills child processes with SIGKILL, and what each had forked: a server killed while it rewrote
 * its append-only file (a replica does just after its first sync) leaves the fork doing it, which
 * would go on writing in the group's folder and keep it from being removed (ENOTEMPTY). Resolves
 * once every child and fork has ended.
 */
export const killAll = (children: ChildProcess[]): Promise<void[]> =>
  Promise.all(children.map(killWithForks));

/**
 * The whole product on a group of Redis processes (Sentinel, Cluster) the caller started: a
 * harness whose REDIS_URL is the group's URL (the harness neither stops nor restarts it); `stop`
 * ends both, the connector first. A half-started pair is ended before the error is thrown.
 */
export async function startHarnessOn<G extends { url: string; close(): Promise<void> }>(
  group: G,
  options: Omit<Parameters<typeof startHarness>[0] & object, 'redis' | 'privateRedis'> = {},
): Promise<{ h: Harness; stop(): Promise<void> }> {
  const h = await startHarness({
    ...options,
    redis: {
      url: group.url,
      private: false,
      start: () => Promise.reject(new Error('a Redis group is not restarted')),
      stop: () => Promise.reject(new Error('a Redis group is not stopped')),
      close: async () => {},
    },
  }).catch(async (error: unknown) => {
    await group.close();
    throw error;
  });
  return {
    h,
    stop: async () => {
      await h.stop();
      await group.close();
    },
  };
}

/**
 * Disconnects a client that is waiting to reconnect, with a command queued: resolves once it
 * has ended (the 'end' BullMQ's close waits for), with what the queued command was answered.
 */
export async function disconnectWhileReconnecting(client: RedisCommands): Promise<string> {
  const queued = client.get('k').then(
    () => 'answered',
    (error: Error) => error.message,
  );
  const ended = new Promise((resolve) => client.once('end', resolve));
  client.disconnect();
  await ended;
  expect(client.status).toBe('end');
  return queued;
}

/**
 * The platform asking for a checkout of `serviceId` during a failover, again and again: each
 * answer is a 503 REDIS_UNAVAILABLE until one is a 202; resolves with when that came.
 */
export function acceptedAfterFailover(h: Harness, serviceId: number): Promise<number> {
  return eventually(
    async () => {
      const answer = await h.simulator.requestCheckout(serviceId);
      if (answer.status === 202) return Date.now();
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'REDIS_UNAVAILABLE' } });
      return undefined;
    },
    30_000,
    'a checkout accepted after the promotion',
  );
}
