import { OPEN_STATES } from '../checkout/checkout-record';

/* The store's Lua scripts, one per change of a checkout; states from checkout-record's constants. */

const luaSet = (values: readonly string[]): string =>
  `{${values.map((value) => `['${value}'] = true`).join(', ')}}`;

// KEYS[1] service pointer, KEYS[2] new record, KEYS[3] due line, KEYS[4] the service's checkouts,
// KEYS[5] the record the pointer named when the caller read it (KEYS[2] when it named none).
// ARGV: the id the pointer named when read ('' for none), newId, serviceId, provider, now,
// expiresAt, first look (ms), now (ms), how long the service's list of checkouts is kept (ms),
// the shop, the trace ('' for none), how many of the service's checkouts the list keeps (its
// newest; a read of it never writes, so the writer bounds it).
// Returns {'retry'} when the pointer moved since it was read, else {kind, checkout id, request
// number, the record's fields (HGETALL)}.
export const OPEN_FOR_SERVICE = `
local open = ${luaSet(OPEN_STATES)}
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return {'retry'} end
if current then
  local state = redis.call('HGET', KEYS[5], 'state')
  if state and open[state] then
    local n = redis.call('HINCRBY', KEYS[5], 'requests', 1)
    return {'open', current, n, redis.call('HGETALL', KEYS[5])}
  end
  if redis.call('HGET', KEYS[5], 'outcome') == 'paid' then
    return {'already_paid', current, 0, redis.call('HGETALL', KEYS[5])}
  end
end
redis.call('HSET', KEYS[2], 'checkoutId', ARGV[2], 'serviceId', ARGV[3], 'provider', ARGV[4],
  'state', 'requested', 'createdAt', ARGV[5], 'updatedAt', ARGV[5], 'expiresAt', ARGV[6], 'requests', 1,
  'shop', ARGV[10])
if ARGV[11] and ARGV[11] ~= '' then redis.call('HSET', KEYS[2], 'trace', ARGV[11]) end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[8], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -(tonumber(ARGV[12]) + 1))
redis.call('PEXPIRE', KEYS[4], ARGV[9])
return {'created', ARGV[2], 1, redis.call('HGETALL', KEYS[2])}`;

// KEYS[1] record, KEYS[2] provider index, KEYS[3] due line.
// ARGV: providerRef, url, amount, currency, lines, now, retentionMs, first look (ms).
// Returns the record's fields as they stand after (HGETALL), or 0 for no record.
export const ATTACH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if not redis.call('HGET', KEYS[1], 'providerRef') then
  redis.call('HSET', KEYS[1], 'providerRef', ARGV[1], 'url', ARGV[2], 'amountMinor', ARGV[3],
    'currency', ARGV[4], 'lines', ARGV[5], 'updatedAt', ARGV[6])
  if ARGV[9] and ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'vendorFeeMinor', ARGV[9]) end
  local id = redis.call('HGET', KEYS[1], 'checkoutId')
  redis.call('SET', KEYS[2], id, 'PX', ARGV[7])
  redis.call('ZADD', KEYS[3], 'XX', ARGV[8], id)
end
return redis.call('HGETALL', KEYS[1])`;

// KEYS[1] record, KEYS[2] due line, KEYS[3] parked set, KEYS[4] the Pix watch, KEYS[5] (an
// outcome's, optional) the provider index, kept as long as the record.
// ARGV: to, isOutcome, now, retentionMs, first look (ms), first watch (ms), then allowed
// from-states, '--', field pairs.
// Moving to 'reported' (the platform acknowledged) takes the checkout out of both lines; to
// 'paid' by Pix puts it in the watch, in the same write.
export const TRANSITION = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {0, false} end
local i = 7
local allowed = false
while ARGV[i] ~= '--' do
  if ARGV[i] == state then allowed = true end
  i = i + 1
end
if not allowed then return {0, state} end
local id = redis.call('HGET', KEYS[1], 'checkoutId')
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'updatedAt', ARGV[3])
-- When each step was first reached: the checkout's story (\`connector checkout status\`).
redis.call('HSETNX', KEYS[1], 'at_' .. ARGV[1], ARGV[3])
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'outcome', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  if KEYS[5] then redis.call('PEXPIRE', KEYS[5], ARGV[4]) end
end
if ARGV[1] == 'reported' then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
else
  redis.call('ZADD', KEYS[2], 'XX', ARGV[5], id)
end
i = i + 1
while ARGV[i] do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
if ARGV[1] == 'paid' and redis.call('HGET', KEYS[1], 'method') == 'pix' then
  redis.call('ZADD', KEYS[4], 'NX', ARGV[6], id)
end
return {1, ARGV[1]}`;

// KEYS[1] record. ARGV: the method, now. Writes how an open checkout is being paid: 1 when written.
export const UPDATE_METHOD = `
local open = ${luaSet(OPEN_STATES)}
local state = redis.call('HGET', KEYS[1], 'state')
if not (state and open[state]) then return 0 end
if redis.call('HGET', KEYS[1], 'method') == ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'method', ARGV[1], 'updatedAt', ARGV[2])
return 1`;

// KEYS[1] record, KEYS[2] due line, KEYS[3] parked set. ARGV: nowMs, keepParkedMs, checkoutId.
// A checkout already reported (a retry got through first) is not parked.
export const PARK = `
if redis.call('HGET', KEYS[1], 'state') == 'reported' then return 0 end
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1] - ARGV[2])
return 1`;

// KEYS[1] record, KEYS[2] (optional) its provider index. ARGV: field (inc:<kind>:<transaction>),
// the incident (JSON), keep (ms).
// Adds an incident once per field: 1 added, 0 there already, -1 without a record. The record and
// its index are kept at least `keep` from the incident: what the provider says next finds it.
export const ADD_INCIDENT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
for i = 1, #KEYS do
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl >= 0 and ttl < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
end
return 1`;

// KEYS[1] record. Notes when the ERP first acknowledged one of its payment records (field
// ARGV[1], `erp:<record id>`, the time ARGV[2]); a gone record stays gone.
export const MARK_RECORD_ACKNOWLEDGED = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) end
return 1`;

// KEYS[1] record. Notes that its payment record is queued for the ERP; a gone record stays gone.
export const MARK_PAID_RECORD = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'paidRecordQueued', '1') end
return 1`;

// KEYS[1] record, KEYS[2] due line, KEYS[3] the services with a plan. ARGV: url, amount,
// currency, lines, the plan (JSON), vendor
// fee ('' none), now, first look (ms), a later expiry ('' none). A planned checkout's page: stored
// once, as ATTACH stores a provider's checkout. Returns the record's fields as they stand after,
// or 0 for no record.
export const ATTACH_PLAN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if not redis.call('HGET', KEYS[1], 'url') then
  redis.call('HSET', KEYS[1], 'url', ARGV[1], 'amountMinor', ARGV[2], 'currency', ARGV[3],
    'lines', ARGV[4], 'plan', ARGV[5], 'updatedAt', ARGV[7])
  if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'vendorFeeMinor', ARGV[6]) end
  if ARGV[9] and ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'expiresAt', ARGV[9]) end
  redis.call('ZADD', KEYS[2], 'XX', ARGV[8], redis.call('HGET', KEYS[1], 'checkoutId'))
  redis.call('SADD', KEYS[3], redis.call('HGET', KEYS[1], 'serviceId'))
end
return redis.call('HGETALL', KEYS[1])`;

// KEYS[1] the planned checkout, KEYS[2] the new part checkout, KEYS[3] due line, KEYS[4] the part
// checkout the slot named when the caller read it (KEYS[2] when none).
// ARGV: the slot field (`slot:<part>:<split>:<method>:<amount>`), the id it named when read (''
// for none), the new id, provider, now, expiresAt, first look (ms), part, split ('' none), shop,
// retention (ms), how many parts the plan has, the order's total (centavos).
// The same choice while its part checkout is open is that checkout ({'open', id, fields}); else a
// new one, linked both ways ({'created', id, fields}). {'retry'}: the slot moved since it was
// read; {'closed'}: the plan ended undone (expired, declined, failed) or is closing (its expiry
// giving back what was paid); {'full'}: it has ARGV[14]
// part checkouts already; {'gone'}: no such checkout.
export const OPEN_PART = `
local open = ${luaSet(OPEN_STATES)}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local outcome = redis.call('HGET', KEYS[1], 'outcome')
if outcome and outcome ~= 'paid' then return {'closed'} end
if redis.call('HEXISTS', KEYS[1], 'closing') == 1 then return {'closed'} end
local current = redis.call('HGET', KEYS[1], ARGV[1])
if (current or '') ~= ARGV[2] then return {'retry'} end
if current then
  local state = redis.call('HGET', KEYS[4], 'state')
  if state and open[state] then return {'open', current, redis.call('HGETALL', KEYS[4])} end
end
if tonumber(redis.call('HGET', KEYS[1], 'kids') or '0') >= tonumber(ARGV[14]) then return {'full'} end
redis.call('HINCRBY', KEYS[1], 'kids', 1)
redis.call('HSET', KEYS[2], 'checkoutId', ARGV[3], 'serviceId', redis.call('HGET', KEYS[1], 'serviceId'),
  'provider', ARGV[4], 'state', 'requested', 'createdAt', ARGV[5], 'updatedAt', ARGV[5],
  'expiresAt', ARGV[6], 'requests', 1, 'shop', ARGV[10],
  'parent', redis.call('HGET', KEYS[1], 'checkoutId'), 'part', ARGV[8], 'planParts', ARGV[12],
  'orderMinor', ARGV[13])
if ARGV[9] ~= '' then redis.call('HSET', KEYS[2], 'split', ARGV[9]) end
local trace = redis.call('HGET', KEYS[1], 'trace')
if trace then redis.call('HSET', KEYS[2], 'trace', trace) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3], 'kid:' .. ARGV[3], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[3])
-- A planned checkout reported at its deposit is kept while its balance is being paid.
local ttl = redis.call('PTTL', KEYS[1])
if ttl >= 0 and ttl < tonumber(ARGV[11]) then redis.call('PEXPIRE', KEYS[1], ARGV[11]) end
return {'created', ARGV[3], redis.call('HGETALL', KEYS[2])}`;

// KEYS: records and their provider indexes. ARGV[1]: how long each is kept at least (ms). A key
// with no expiry, or a longer one, is left as it is.
export const KEEP_AT_LEAST = `
for i = 1, #KEYS do
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl >= 0 and ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return 1`;

// KEYS[1] a set. ARGV: members. Whether each is in the set (SMISMEMBER, which needs Redis 6.2).
export const ARE_MEMBERS = `
local found = {}
for i = 1, #ARGV do found[i] = redis.call('SISMEMBER', KEYS[1], ARGV[i]) end
return found`;

// KEYS[1] record. ARGV[1]: now. Marks a planned checkout closing (its expiry is giving back what
// was paid): no part checkout opens and no finish is recorded from then on. A gone record stays gone.
export const MARK_CLOSING = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSETNX', KEYS[1], 'closing', ARGV[1]) end
return 1`;
