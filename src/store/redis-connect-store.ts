import { hashOf } from '../connect/connect-states';
import type { RedisCommands } from '../redis/redis';
import { connectKeys } from '../redis/keyspace';
import { runScript } from '../redis/redis-scripts';
import type { ConnectLink, ConnectLinkStore, ConnectState, PendingAccount } from '../connect/ports';

// GET and DEL in one step (GETDEL needs Redis 6.2; a script works on every Redis we support).
const TAKE = `
local value = redis.call('GET', KEYS[1])
if value then redis.call('DEL', KEYS[1]) end
return value`;

// INCR a link's refusals; the window starts with the first.
const COUNT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

function parsed<T>(text: string | null): T | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export class RedisConnectStore implements ConnectLinkStore {
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

  async putState(hash: string, value: ConnectState, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.state(hash), JSON.stringify(value), 'PX', Math.max(1, ttlMs));
  }

  async getState(hash: string): Promise<ConnectState | undefined> {
    return parsed(await this.redis.get(this.keys.state(hash)));
  }

  async takeState(hash: string): Promise<ConnectState | undefined> {
    return parsed((await runScript(this.redis, TAKE, 1, this.keys.state(hash))) as string | null);
  }

  async putLinkAccount(linkKey: string, account: PendingAccount, ttlMs: number): Promise<void> {
    const key = this.keys.linkAccount(linkKey);
    await this.redis.set(key, JSON.stringify(account), 'PX', Math.max(1, ttlMs));
  }

  async getLinkAccount(linkKey: string): Promise<PendingAccount | undefined> {
    return parsed(await this.redis.get(this.keys.linkAccount(linkKey)));
  }

  async putPendingAccount(provider: string, account: PendingAccount, ttlMs: number): Promise<void> {
    const key = this.keys.pendingAccount(provider, hashOf(account.account));
    await this.redis.set(key, JSON.stringify(account), 'PX', Math.max(1, ttlMs));
  }

  async getPendingAccount(provider: string, account: string): Promise<PendingAccount | undefined> {
    const key = this.keys.pendingAccount(provider, hashOf(account));
    const found = parsed<PendingAccount>(await this.redis.get(key));
    // A hash names it: the account itself must match too.
    return found?.account === account ? found : undefined;
  }

  async dropPendingAccount(provider: string, account: string): Promise<void> {
    await this.redis.del(this.keys.pendingAccount(provider, hashOf(account)));
  }

  async countRefusal(linkKey: string, windowMs: number): Promise<number> {
    return Number(await runScript(this.redis, COUNT, 1, this.keys.refusals(linkKey), windowMs));
  }

  async refusals(linkKey: string): Promise<number> {
    return Number((await this.redis.get(this.keys.refusals(linkKey))) ?? 0);
  }
}
