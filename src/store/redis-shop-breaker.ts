import type { RedisCommands } from '../redis/redis';
import type {
  BreakerAdmission,
  BreakerFailure,
  BreakerRules,
  BreakerStore,
} from '../delivery/ports';
import { breakerKey } from '../redis/keyspace';
import { runScript } from '../redis/redis-scripts';

/*
 * A shop's breaker is one hash, under the shop's tag: `failures` (in a row), `opens` (how many
 * times it opened since it last closed: the cool-down doubles with each), `openUntil` (ms; present
 * while open) and `probeUntil` (ms; while a probe is out). Absent: closed. Each step is one script
 * on that one key.
 */

// KEYS[1] the breaker; ARGV[1] now, ARGV[2] how long a probe has. {state, until}.
const ADMIT = `
local s = redis.call('HMGET', KEYS[1], 'openUntil', 'probeUntil')
if not s[1] then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {'counting', 0} end
  return {'closed', 0}
end
local now = tonumber(ARGV[1])
local openUntil = tonumber(s[1])
if now < openUntil then return {'open', openUntil} end
local probeUntil = tonumber(s[2] or '0')
if now < probeUntil then return {'open', probeUntil} end
redis.call('HSET', KEYS[1], 'probeUntil', now + tonumber(ARGV[2]))
return {'probe', 0}
`;

// KEYS[1] the breaker; ARGV[1] now, ARGV[2] threshold, ARGV[3] first cool-down, ARGV[4] longest
// cool-down, ARGV[5] window of failures in a row, ARGV[6] '1' when the failure is a probe's.
// {state, until, how many times it has opened (0: not by this failure), cool-down}.
const FAILED = `
local now = tonumber(ARGV[1])
local openUntil = tonumber(redis.call('HGET', KEYS[1], 'openUntil') or '0')
if openUntil > 0 and ARGV[6] ~= '1' then
  -- A job let in before the breaker opened: it waits with the others; only a probe decides.
  return {'open', math.max(openUntil, now + 1000), 0, 0}
end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if openUntil == 0 and failures < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'counting', 0, 0, 0}
end
local opens = redis.call('HINCRBY', KEYS[1], 'opens', 1)
local cooldown = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (opens - 1))
local untilMs = now + cooldown
redis.call('HSET', KEYS[1], 'openUntil', untilMs)
redis.call('HDEL', KEYS[1], 'probeUntil')
-- Kept a week past the last failure: a shop removed meanwhile leaves nothing for long.
redis.call('PEXPIRE', KEYS[1], 604800000)
return {'open', untilMs, opens, cooldown}
`;

// KEYS[1] the breaker. 1 when it was open.
const ANSWERED = `
local open = redis.call('HEXISTS', KEYS[1], 'openUntil')
redis.call('DEL', KEYS[1])
return open
`;

type Failure = BreakerFailure['kind'];

export class RedisShopBreakers implements BreakerStore {
  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix: string,
  ) {}

  async admit(shop: string, nowMs: number, rules: BreakerRules): Promise<BreakerAdmission> {
    const key = breakerKey(this.prefix, shop);
    const answer = await runScript(this.redis, ADMIT, 1, key, nowMs, rules.probeMs);
    const [state, until] = answer as [BreakerAdmission['kind'], number];
    return state === 'open' ? { kind: 'open', until } : { kind: state };
  }

  async failed(
    shop: string,
    nowMs: number,
    rules: BreakerRules,
    probe: boolean,
  ): Promise<BreakerFailure> {
    const { threshold, maxCooldownMs, windowMs } = rules;
    const args = [nowMs, threshold, rules.cooldownMs, maxCooldownMs, windowMs, probe ? '1' : '0'];
    const answer = await runScript(this.redis, FAILED, 1, breakerKey(this.prefix, shop), ...args);
    const [state, until, opens, cooldownMs] = answer as [Failure, number, number, number];
    return state === 'open' ? { kind: 'open', until, opens, cooldownMs } : { kind: 'counting' };
  }

  async answered(shop: string): Promise<boolean> {
    return (await runScript(this.redis, ANSWERED, 1, breakerKey(this.prefix, shop))) === 1;
  }

  async stateOf(shop: string): Promise<'closed' | 'counting' | 'open'> {
    const fields = await this.redis.hgetall(breakerKey(this.prefix, shop));
    if (fields.openUntil !== undefined) return 'open';
    return Object.keys(fields).length > 0 ? 'counting' : 'closed';
  }
}
