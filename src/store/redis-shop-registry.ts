import type { RedisCommands } from '../redis/redis';
import { registryKeys } from '../redis/keyspace';
import { runScript } from '../redis/redis-scripts';
import type { AuditEntry, RegistryStore, ShopEntry } from '../shop-registry/ports';
import type { StoredShop } from '../shop-registry/stored-shop';

/** How many entries each shop's audit trail keeps, newest first. */
export const AUDIT_KEPT = 1000;

// Each write: KEYS[1] the shops hash, KEYS[2] the version, KEYS[3] the shop's audit trail,
// KEYS[4] the removals (one tag: one slot); ARGV[1] id, ARGV[2] the text expected now ('' for
// none), ARGV[3] the new text ('' to remove), ARGV[4] the audit entry, ARGV[5] how many entries
// to keep. 0 when the shop's text was not the one expected. A removal takes the shop's audit
// trail with it, in the same step (a shop added later under the id starts with its own), and
// its entry goes to the removals, which no shop's trail shows.
const WRITE = `
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then return 0 end
local trail = KEYS[3]
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('DEL', KEYS[3])
  trail = KEYS[4]
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
redis.call('LPUSH', trail, ARGV[4])
redis.call('LTRIM', trail, 0, tonumber(ARGV[5]) - 1)
redis.call('INCR', KEYS[2])
return 1
`;

/** The registry in Redis: one hash of shops, a version the processes poll, audit trails. */
export class RedisShopRegistry implements RegistryStore {
  private readonly keys: ReturnType<typeof registryKeys>;

  constructor(
    private readonly redis: RedisCommands,
    prefix: string,
  ) {
    this.keys = registryKeys(prefix);
  }

  async version(): Promise<string> {
    return (await this.redis.get(this.keys.version)) ?? '0';
  }

  async all(): Promise<Map<string, ShopEntry>> {
    const all = await this.redis.hgetall(this.keys.shops);
    return new Map(Object.entries(all).map(([id, raw]) => [id, entryOf(raw)]));
  }

  async get(id: string): Promise<ShopEntry | undefined> {
    const raw = await this.redis.hget(this.keys.shops, id);
    return raw === null ? undefined : entryOf(raw);
  }

  async getMany(ids: readonly string[]): Promise<Map<string, ShopEntry>> {
    const raws = await this.redis.hmget(this.keys.shops, ...ids);
    const entries = new Map<string, ShopEntry>();
    raws.forEach((raw, i) => {
      const id = ids[i];
      if (raw !== null && id !== undefined) entries.set(id, entryOf(raw));
    });
    return entries;
  }

  private async write(
    id: string,
    expected: string,
    next: string,
    audit: AuditEntry & { shop?: string },
  ): Promise<boolean> {
    const done = await runScript(
      this.redis,
      WRITE,
      4,
      this.keys.shops,
      this.keys.version,
      this.keys.audit(id),
      this.keys.removals,
      id,
      expected,
      next,
      JSON.stringify(audit),
      AUDIT_KEPT,
    );
    return done === 1;
  }

  create(stored: StoredShop, audit: AuditEntry): Promise<boolean> {
    return this.write(stored.id, '', JSON.stringify(stored), audit);
  }

  replace(expected: string, stored: StoredShop, audit: AuditEntry): Promise<boolean> {
    return this.write(stored.id, expected, JSON.stringify(stored), audit);
  }

  remove(expected: string, id: string, audit: AuditEntry): Promise<boolean> {
    return this.write(id, expected, '', { ...audit, shop: id });
  }

  async audit(id: string, limit: number): Promise<AuditEntry[]> {
    const entries = await this.redis.lrange(this.keys.audit(id), 0, limit - 1);
    return entries.map((entry) => JSON.parse(entry) as AuditEntry);
  }
}

/**
 * An entry whose text is parsed only when read: the shop's record is read on every request
 * (RegistryShops.fresh), and parsed only when its text changed.
 */
function entryOf(raw: string): ShopEntry {
  let stored: StoredShop | undefined;
  return {
    raw,
    get stored() {
      stored ??= JSON.parse(raw) as StoredShop;
      return stored;
    },
  };
}
