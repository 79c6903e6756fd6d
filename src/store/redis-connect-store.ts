import type { RedisCommands } from '../infra/redis';
import { connectKeys } from '../infra/keyspace';
import { runScript } from '../infra/redis-scripts';
import type {
  ConnectLink,
  ConnectLinkStore,
  ConnectState,
  RenewLock,
} from '../shop-registry/ports';

// Deletes the lock only if it is still the owner's (a lock that lapsed may be another's now).
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

// GET and DEL in one step (GETDEL needs Redis 6.2; a script works on every Redis we support).
const TAKE = `
local value = redis.call('GET', KEYS[1])
if value then redis.call('DEL', KEYS[1]) end
return value`;

function parsed<T>(text: string | null): T | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** The connect links, connections under way and renewal locks in Redis. */
export class RedisConnectStore implements ConnectLinkStore, RenewLock {
  private readonly keys: ReturnType<typeof connectKeys>;

  constructor(
    private readonly redis: RedisCommands,
    prefix: string,
  ) {
    this.keys = connectKeys(prefix);
  }

  async put(key: string, link: ConnectLink, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.link(key), JSON.stringify(link), 'PX', Math.max(1, ttlMs));
  }

  async get(key: string): Promise<ConnectLink | undefined> {
    return parsed(await this.redis.get(this.keys.link(key)));
  }

  async take(key: string): Promise<ConnectLink | undefined> {
    return parsed((await runScript(this.redis, TAKE, 1, this.keys.link(key))) as string | null);
  }

  async putState(state: string, value: ConnectState, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.state(state), JSON.stringify(value), 'PX', ttlMs);
  }

  async getState(state: string): Promise<ConnectState | undefined> {
    return parsed(await this.redis.get(this.keys.state(state)));
  }

  async takeState(state: string): Promise<ConnectState | undefined> {
    return parsed((await runScript(this.redis, TAKE, 1, this.keys.state(state))) as string | null);
  }

  async acquire(shop: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.renewLock(shop), owner, 'PX', ttlMs, 'NX')) === 'OK';
  }

  async release(shop: string, owner: string): Promise<void> {
    await runScript(this.redis, RELEASE, 1, this.keys.renewLock(shop), owner);
  }

  async held(shop: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.renewLock(shop))) === 1;
  }
}
