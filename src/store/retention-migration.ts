import { scanPrimaries, type RedisCommands } from '../redis/redis';
import { runScript } from '../redis/redis-scripts';
import { checkoutKeys } from './checkout-keys';

/*
 * Records are kept CHECKOUT_RETENTION_DAYS after their outcome; the previous release kept them 30
 * days from their last write. `connector migrate` gives every record with an outcome, and its
 * provider's index, the current retention counted from the outcome, never less than it has.
 */

// KEYS[1] record. ARGV: how long to keep it from now (ms), dry run ('1'), the slack (ms): a record
// kept within it already has its retention (the clocks of the writer, this command and Redis
// differ a little). Returns 1 when its time was (or would be) extended.
const SET_TTL = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
if ttl >= 0 and ttl + tonumber(ARGV[3]) >= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '1' then return 1 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

// KEYS[1] a record's provider index, KEYS[2] the record. ARGV: dry run ('1').
// The index lives as long as its record, never less: a refund's event must find the checkout
// (an incident extended the record and, before this release, not its index).
const ALIGN_INDEX = `
local want = redis.call('PTTL', KEYS[2])
local ttl = redis.call('PTTL', KEYS[1])
if want < 0 or ttl < 0 or ttl >= want then return 0 end
if ARGV[1] ~= '1' then redis.call('PEXPIRE', KEYS[1], want) end
return 1`;

/** How close to its retention a record's time may be and count as having it. */
const SLACK_MS = 3_600_000;

/** The scope a record key is of (`{P:shop:<scope>}:chk:<id>`); undefined for any other key. */
export function scopeOf(prefix: string, key: string): string | undefined {
  const head = `{${prefix}:shop:`;
  const end = key.indexOf('}:chk:');
  return key.startsWith(head) && end > head.length ? key.slice(head.length, end) : undefined;
}

/** When a record's outcome was recorded, with its provider's index key; undefined without one. */
async function outcomeOf(
  redis: RedisCommands,
  prefix: string,
  key: string,
): Promise<{ at: number; ref: string } | undefined> {
  const scope = scopeOf(prefix, key);
  if (scope === undefined) return undefined;
  const fields = ['outcome', 'provider', 'providerRef', 'updatedAt'];
  const [outcome, provider, providerRef, updatedAt] = await redis.hmget(key, ...fields);
  if (!outcome) return undefined;
  // Records written before the story's times have only their last write's.
  const at = Date.parse((await redis.hget(key, `at_${outcome}`)) ?? updatedAt ?? '');
  if (Number.isNaN(at)) return undefined;
  const ref =
    provider && providerRef ? checkoutKeys(prefix, scope).ref(provider, providerRef) : key;
  return { at, ref };
}

/**
 * Extends every checkout record with an outcome under `prefix` to `retentionMs` after its
 * outcome, with its provider's index. The connector may run meanwhile.
 */
export async function extendRetention(
  redis: RedisCommands,
  prefix: string,
  retentionMs: number,
  options: { dryRun?: boolean; now?: Date } = {},
): Promise<{ extended: number; seen: number }> {
  const report = { extended: 0, seen: 0 };
  const dryRun = options.dryRun ? '1' : '0';
  for await (const batch of scanPrimaries(redis, `{${prefix}:shop:*}:chk:*`, 1000)) {
    for (const key of batch) {
      const found = await outcomeOf(redis, prefix, key);
      if (!found) continue;
      report.seen += 1;
      const keepMs = found.at + retentionMs - (options.now ?? new Date()).getTime();
      if (keepMs <= 0) continue;
      const extended = await runScript(redis, SET_TTL, 1, key, Math.ceil(keepMs), dryRun, SLACK_MS);
      report.extended += extended as number;
      if (found.ref !== key) await runScript(redis, ALIGN_INDEX, 2, found.ref, key, dryRun);
    }
  }
  return report;
}
