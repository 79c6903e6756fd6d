import { isCluster, scanPrimaries, type RedisCommands } from '../redis/redis';
import { queuePrefix, shopTag } from '../redis/keyspace';
import { ENV_SHOP_ID } from '../shop/shop-id';

/**
 * Layout 1 to layout 2 (src/redis/keyspace.ts). Layout 1 had one shop and no hash tags:
 *
 *   P:chk:<id>, P:chk-service:..., P:chk-history:..., P:chk-ref:..., P:chk-event:...,
 *   P:chk-due, P:chk-parked, P:sandbox:<id>     the checkouts        -> {P:shop:default}:...
 *   P:sync:fp                                   the sync ledger      -> {P:shop:default}:sync-fp
 *   P:checkout:..., P:notifications:..., P:sync:...   BullMQ         -> {P:queue:<q>}:<q>:...
 *   P:rl:...                                    rate-limit counters  -> {P:rl}:...
 *
 * Every key is renamed as it is: values, TTLs, jobs with their attempts, delays, failed set and
 * schedules are kept whole, and no value names a key (job data and lines hold ids only). Jobs and
 * records without a shop are the env shop's (their ids name none). Each RENAME is atomic and a
 * moved key is not seen again, so a migration cut short is finished by running it again.
 */
const QUEUE_NAMES = ['checkout', 'notifications', 'sync'] as const;

type Family = keyof MigrationReport['moved'];

/** Where a layout-1 key goes, and what it holds; undefined when it is not one of layout 1's. */
export function layout2KeyOf(
  prefix: string,
  key: string,
): { to: string; family: Family } | undefined {
  if (!key.startsWith(`${prefix}:`)) return undefined;
  const rest = key.slice(prefix.length + 1);
  const shop = shopTag(prefix, ENV_SHOP_ID);
  // Before the queues: the ledger's name reads like a job of the sync queue.
  if (rest === 'sync:fp') return { to: `${shop}:sync-fp`, family: 'ledger' };
  if (/^chk(-[a-z]+)?:/.test(rest) || rest === 'chk-due' || rest === 'chk-parked') {
    return { to: `${shop}:${rest}`, family: 'checkouts' };
  }
  if (rest.startsWith('sandbox:')) return { to: `${shop}:${rest}`, family: 'checkouts' };
  if (rest.startsWith('rl:'))
    return { to: `{${prefix}:rl}:${rest.slice(3)}`, family: 'rateLimits' };
  for (const queue of QUEUE_NAMES) {
    if (rest.startsWith(`${queue}:`)) {
      return { to: `${queuePrefix(prefix, queue)}:${rest}`, family: 'queues' };
    }
  }
  return undefined;
}

/**
 * Whether Redis holds data of layout 1 under `prefix`, not migrated yet: one EXISTS per key that
 * exists whenever a layout-1 deployment ran, all at once (on a Cluster they are in different slots).
 */
export async function holdsLayout1(redis: RedisCommands, prefix: string): Promise<boolean> {
  const markers = [
    ...QUEUE_NAMES.map((queue) => `${prefix}:${queue}:meta`),
    ...['chk-due', 'chk-parked', 'sync:fp'].map((name) => `${prefix}:${name}`),
  ];
  const found = await Promise.all(markers.map((key) => redis.exists(key)));
  return found.some((count) => count > 0);
}

/** Layout-1 keys on a Redis Cluster, which the previous release never ran on. */
export class Layout1OnClusterError extends Error {}

export interface MigrationReport {
  moved: { checkouts: number; queues: number; ledger: number; rateLimits: number };
  /** Keys whose new name was taken already: left where they were, for a person to look at. */
  conflicts: Array<{ from: string; to: string }>;
}

/** Moves every layout-1 key under `prefix` to layout 2, idempotent; the processes stopped. */
export async function migrateToLayout2(
  redis: RedisCommands,
  prefix: string,
  options: { dryRun?: boolean } = {},
): Promise<MigrationReport> {
  const report: MigrationReport = {
    moved: { checkouts: 0, queues: 0, ledger: 0, rateLimits: 0 },
    conflicts: [],
  };
  const keys: string[] = [];
  for await (const batch of scanPrimaries(redis, `${prefix}:*`, 1000)) keys.push(...batch);
  const toMove = keys.filter((key) => layout2KeyOf(prefix, key) !== undefined);
  // A layout-1 key and its layout-2 name share no slot, so RENAMENX cannot move it on a Cluster:
  // such data was copied there from the single server the previous release ran on.
  if (toMove.length > 0 && isCluster(redis)) {
    throw new Layout1OnClusterError(
      `${toMove.length} keys of the previous release's layout are on this Redis Cluster, which that release never ran on: run "connector migrate" on the single Redis they came from, then copy the data`,
    );
  }
  for (const from of toMove) {
    const target = layout2KeyOf(prefix, from);
    if (target === undefined) continue;
    const { to, family } = target;
    if (options.dryRun) {
      if ((await redis.exists(to)) === 1) report.conflicts.push({ from, to });
      else report.moved[family] += 1;
      continue;
    }
    // RENAMENX: 1 moved, 0 the new name exists; an error when `from` is gone (moved already).
    const moved = await redis.renamenx(from, to).catch((error: unknown) => {
      if (error instanceof Error && error.message.includes('no such key')) return -1;
      throw error;
    });
    if (moved === 1) report.moved[family] += 1;
    else if (moved === 0) report.conflicts.push({ from, to });
  }
  return report;
}
