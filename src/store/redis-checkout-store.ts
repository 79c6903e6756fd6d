import type { Redis } from 'ioredis';
import {
  isOutcome,
  statesLeadingTo,
  type ChargeLine,
  type CheckoutRecord,
  type CheckoutState,
  type Money,
} from '../checkout/checkout-record';
import type { CheckoutStore, OpenResult } from '../checkout/ports';

/*
 * Keys (all under the QUEUE_PREFIX):
 *   checkout:<id>                    hash, the record
 *   checkout:service:<serviceId>     the id of the service's latest checkout
 *   checkout:ref:<provider>:<ref>    the id of the checkout a provider reference belongs to
 * Scripts build record keys from ids, so the store needs a single Redis (not a cluster).
 */

// KEYS[1] service pointer, KEYS[2] new record. ARGV: prefix, newId, serviceId, provider, now, expiresAt.
const OPEN_FOR_SERVICE = `
local current = redis.call('GET', KEYS[1])
if current then
  local key = ARGV[1] .. ':checkout:' .. current
  local state = redis.call('HGET', key, 'state')
  local outcome = redis.call('HGET', key, 'outcome')
  if state == 'requested' or state == 'url_sent' or state == 'processing' then
    return {'open', current, redis.call('HINCRBY', key, 'requests', 1)}
  end
  if outcome == 'paid' then return {'already_paid', current, 0} end
end
redis.call('HSET', KEYS[2], 'checkoutId', ARGV[2], 'serviceId', ARGV[3], 'provider', ARGV[4],
  'state', 'requested', 'createdAt', ARGV[5], 'updatedAt', ARGV[5], 'expiresAt', ARGV[6], 'requests', 1)
redis.call('SET', KEYS[1], ARGV[2])
return {'created', ARGV[2], 1}`;

// KEYS[1] record, KEYS[2] provider index. ARGV: providerRef, url, amount, currency, lines, now.
const ATTACH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if not redis.call('HGET', KEYS[1], 'providerRef') then
  redis.call('HSET', KEYS[1], 'providerRef', ARGV[1], 'url', ARGV[2], 'amountMinor', ARGV[3],
    'currency', ARGV[4], 'lines', ARGV[5], 'updatedAt', ARGV[6])
  redis.call('SET', KEYS[2], redis.call('HGET', KEYS[1], 'checkoutId'), 'PX', ARGV[7])
end
return 1`;

// KEYS[1] record. ARGV: to, isOutcome, now, retentionMs, then allowed from-states, then '--', field pairs.
const TRANSITION = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {0, false} end
local i = 5
local allowed = false
while ARGV[i] ~= '--' do
  if ARGV[i] == state then allowed = true end
  i = i + 1
end
if not allowed then return {0, state} end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'updatedAt', ARGV[3])
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'outcome', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
i = i + 1
while ARGV[i] do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
return {1, ARGV[1]}`;

/** Records are kept this long after their outcome: for return pages, dedupe and support. */
const RETENTION_MS = 30 * 86_400_000;

/** The checkout store on Redis; every change is one Lua script, so it is atomic. */
export class RedisCheckoutStore implements CheckoutStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private recordKey(checkoutId: string): string {
    return `${this.prefix}:checkout:${checkoutId}`;
  }

  private refKey(provider: string, providerRef: string): string {
    return `${this.prefix}:checkout:ref:${provider}:${providerRef}`;
  }

  async openForService(input: {
    checkoutId: string;
    serviceId: number;
    provider: string;
    now: Date;
    expiresAt: Date;
  }): Promise<OpenResult> {
    const [kind, checkoutId, requestNumber] = (await this.redis.eval(
      OPEN_FOR_SERVICE,
      2,
      `${this.prefix}:checkout:service:${input.serviceId}`,
      this.recordKey(input.checkoutId),
      this.prefix,
      input.checkoutId,
      input.serviceId,
      input.provider,
      input.now.toISOString(),
      input.expiresAt.toISOString(),
    )) as [OpenResult['kind'], string, number];
    const record = await this.get(checkoutId);
    if (!record) throw new Error(`checkout ${checkoutId} vanished while opening`);
    if (kind === 'open') return { kind, record, requestNumber };
    return { kind, record };
  }

  async get(checkoutId: string): Promise<CheckoutRecord | undefined> {
    const h = await this.redis.hgetall(this.recordKey(checkoutId));
    if (!h.checkoutId || !h.state) return undefined;
    const amount: Money | undefined =
      h.amountMinor && h.currency
        ? { amountMinor: Number(h.amountMinor), currency: h.currency }
        : undefined;
    return {
      checkoutId: h.checkoutId,
      serviceId: Number(h.serviceId),
      state: h.state as CheckoutState,
      outcome: h.outcome as CheckoutRecord['outcome'],
      provider: h.provider ?? '',
      providerRef: h.providerRef,
      url: h.url,
      amount,
      lines: h.lines ? (JSON.parse(h.lines) as ChargeLine[]) : undefined,
      transactionId: h.transactionId,
      reason: h.reason,
      createdAt: h.createdAt ?? '',
      updatedAt: h.updatedAt ?? '',
      expiresAt: h.expiresAt ?? '',
    };
  }

  async findByProviderRef(
    provider: string,
    providerRef: string,
  ): Promise<CheckoutRecord | undefined> {
    const checkoutId = await this.redis.get(this.refKey(provider, providerRef));
    return checkoutId ? this.get(checkoutId) : undefined;
  }

  async attachProviderCheckout(
    checkoutId: string,
    attach: { providerRef: string; url: string; amount: Money; lines: ChargeLine[] },
    now: Date,
  ): Promise<CheckoutRecord> {
    const record = await this.get(checkoutId);
    if (!record) throw new Error(`checkout ${checkoutId} not found`);
    await this.redis.eval(
      ATTACH,
      2,
      this.recordKey(checkoutId),
      this.refKey(record.provider, attach.providerRef),
      attach.providerRef,
      attach.url,
      attach.amount.amountMinor,
      attach.amount.currency,
      JSON.stringify(attach.lines),
      now.toISOString(),
      RETENTION_MS,
    );
    return (await this.get(checkoutId)) ?? record;
  }

  async transition(
    checkoutId: string,
    to: CheckoutState,
    fields: { transactionId?: string; reason?: string },
    now: Date,
  ): Promise<{ moved: boolean; state: CheckoutState | undefined }> {
    const pairs = Object.entries(fields).flatMap(([k, v]) => (v === undefined ? [] : [k, v]));
    const [moved, state] = (await this.redis.eval(
      TRANSITION,
      1,
      this.recordKey(checkoutId),
      to,
      isOutcome(to) ? '1' : '0',
      now.toISOString(),
      RETENTION_MS,
      ...statesLeadingTo(to),
      '--',
      ...pairs,
    )) as [number, string | null];
    return { moved: moved === 1, state: (state ?? undefined) as CheckoutState | undefined };
  }
}
