import { hashOf } from '../connect/connect-states';
import { connectKeys } from '../infra/keyspace';
import { scanPrimaries, type RedisCommands } from '../infra/redis';
import { runScript } from '../infra/redis-scripts';

/*
 * The connections under way as the previous release kept them, moved to the current layout by
 * `connector migrate` (issue 43; docs/operating.md, "Upgrading"). That release kept under
 * `{P:connect}:state:<name>`:
 * - `account:<Stripe account id>`: the pending account of an onboarding, for Stripe's event;
 * - `link-account:<link key>`: the account made for a link, one per link;
 * - `<state>`: a state as handed out (24 random bytes), its PKCE verifier in plain text.
 * The first two move to names that hold no account id (the account's SHA-256; the provider is
 * the link's, and a pending account whose link lapsed is dropped) and go on working:
 * an onboarding in flight is still connected by Stripe's account.updated, and the link's button
 * still reuses its account. The states are deleted: unbound to a browser and holding a verifier
 * unsealed, they cannot be made safe; their callbacks get the "Link inválido" page and the
 * owner opens the link again (it is not used up until a connection completes).
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

/** What moving the connections under way did. */
export interface ConnectMigrationReport {
  /** Pending accounts and link accounts moved to names without an account id. */
  moved: number;
  /** States of the previous layout deleted. */
  dropped: number;
}

interface PendingV2 {
  link?: unknown;
  secret?: unknown;
  shop?: unknown;
}

function pendingOf(
  text: string | null,
): { link: string; shop: string; account: string } | undefined {
  if (text === null) return undefined;
  try {
    const { link, secret, shop } = JSON.parse(text) as PendingV2;
    if (typeof link !== 'string' || typeof secret !== 'string' || typeof shop !== 'string') {
      return undefined;
    }
    return { link, shop, account: secret };
  } catch {
    return undefined;
  }
}

/** The provider a stored link is for. */
function providerOf(text: string | null): string | undefined {
  if (text === null) return undefined;
  try {
    const { provider } = JSON.parse(text) as { provider?: unknown };
    return typeof provider === 'string' ? provider : undefined;
  } catch {
    return undefined;
  }
}

/** Moves the previous release's connections under way (see above); idempotent. */
export async function migrateConnectStates(
  redis: RedisCommands,
  prefix: string,
  options: { dryRun?: boolean } = {},
): Promise<ConnectMigrationReport> {
  const keys = connectKeys(prefix);
  const head = `${keys.tag}:state:`;
  const report: ConnectMigrationReport = { moved: 0, dropped: 0 };
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
    const provider = providerOf(await redis.get(keys.link(pending.link)));
    const hash = hashOf(pending.account);
    if (provider !== undefined) target = keys.pendingAccount(provider, hash);
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
