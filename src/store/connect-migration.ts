import { hashOf } from '../connect/connect-states';
import { connectKeys } from '../redis/keyspace';
import { scanPrimaries, type RedisCommands } from '../redis/redis';
import { runScript } from '../redis/redis-scripts';

/*
 * The connections under way as the previous release kept them under `{P:connect}:state:<name>`,
 * moved by `connector migrate` (issue 43; docs/operating.md, "Upgrading"):
 * - `account:<Stripe account id>` (an onboarding's pending account) and `link-account:<link key>`
 *   move to names that hold no account id (its SHA-256) and go on working; a pending account
 *   whose link lapsed is dropped;
 * - `<state>` (its PKCE verifier in plain text, unbound to a browser) cannot be made safe and is
 *   deleted: its callback gets "Link inválido" and the owner opens the link again.
 */

// KEYS[1] the old key, KEYS[2] the new one (same hash tag). ARGV[1] the new value; dry run '1'.
// Keeps the old key's time to live. Returns 1 when moved (or would be), 0 when it was gone.
const MOVE = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
if ARGV[2] == '1' then return 1 end
if ttl > 0 then redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl) else redis.call('SET', KEYS[2], ARGV[1]) end
redis.call('DEL', KEYS[1])
return 1`;

/** A stored JSON object's fields; {} when the text is none or not JSON. */
function fieldsOf(text: string | null): Record<string, unknown> {
  try {
    return (JSON.parse(text ?? '{}') as Record<string, unknown> | null) ?? {};
  } catch {
    return {};
  }
}

function pendingOf(text: string | null) {
  const { link, secret, shop } = fieldsOf(text);
  if (typeof link !== 'string' || typeof secret !== 'string' || typeof shop !== 'string') {
    return undefined;
  }
  return { link, shop, account: secret };
}

/** Moves the previous release's connections under way (see above); idempotent. */
export async function migrateConnectStates(
  redis: RedisCommands,
  prefix: string,
  options: { dryRun?: boolean } = {},
): Promise<{ moved: number; dropped: number }> {
  const keys = connectKeys(prefix);
  const head = `${keys.tag}:state:`;
  const report = { moved: 0, dropped: 0 };
  const found: string[] = [];
  // Braces are no glob characters; the rest of a prefix's would be escaped.
  const pattern = `${head.replace(/[[\]*?\\]/g, (c) => `\\${c}`)}*`;
  for await (const batch of scanPrimaries(redis, pattern, 1000)) found.push(...batch);
  for (const key of found) {
    const name = key.slice(head.length);
    // A state of the current layout is named by a SHA-256.
    if (/^[0-9a-f]{64}$/.test(name)) continue;
    const moved = await moveOne(redis, keys, key, name, options.dryRun === true);
    if (moved === 'moved') report.moved += 1;
    else if (moved === 'dropped') report.dropped += 1;
  }
  return report;
}

async function moveOne(
  redis: RedisCommands,
  keys: ReturnType<typeof connectKeys>,
  key: string,
  name: string,
  dryRun: boolean,
): Promise<'moved' | 'dropped' | 'gone'> {
  const pending = name.includes(':') ? pendingOf(await redis.get(key)) : undefined;
  let target: string | undefined;
  if (pending && name.startsWith('account:')) {
    // Its provider is its link's; a pending account whose link lapsed connects nothing.
    const { provider } = fieldsOf(await redis.get(keys.link(pending.link)));
    if (typeof provider === 'string')
      target = keys.pendingAccount(provider, hashOf(pending.account));
  } else if (pending && name.startsWith('link-account:')) {
    target = keys.linkAccount(name.slice('link-account:'.length));
  }
  if (target === undefined) {
    if (!dryRun) await redis.del(key);
    return 'dropped';
  }
  const args = [JSON.stringify(pending), dryRun ? '1' : '0'];
  return Number(await runScript(redis, MOVE, 2, key, target, ...args)) === 1 ? 'moved' : 'gone';
}
