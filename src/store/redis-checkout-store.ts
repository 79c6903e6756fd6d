import type { Redis } from 'ioredis';
import {
  isOutcome,
  statesLeadingTo,
  type ChargeLine,
  type CheckoutRecord,
  type CheckoutState,
  type Money,
  type NotificationKind,
} from '../checkout/checkout-record';
import type { CheckoutStore, OpenResult } from '../checkout/ports';

/*
 * Keys (all under the QUEUE_PREFIX; never `<prefix>:<queue name>:...`, which is BullMQ's):
 *   chk:<id>                         hash, the record
 *   chk-service:<serviceId>          the id of the service's latest checkout
 *   chk-ref:<provider>:<ref>         the id of the checkout a provider reference belongs to
 *   chk-active                       zset of checkouts not yet reported, scored by expiry
 *   delivered:<id>                   the notification delivered for a checkout (8 days)
 * Scripts build record keys from ids, so the store needs a single Redis (not a cluster).
 */

// KEYS[1] service pointer, KEYS[2] new record, KEYS[3] active index.
// ARGV: prefix, newId, serviceId, provider, now, expiresAt, expiresAtMs.
const OPEN_FOR_SERVICE = `
local current = redis.call('GET', KEYS[1])
if current then
  local key = ARGV[1] .. ':chk:' .. current
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
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[2])
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

// KEYS[1] record, KEYS[2] active index.
// ARGV: to, isOutcome, now, retentionMs, then allowed from-states, then '--', field pairs.
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
if ARGV[1] == 'reported' then
  redis.call('ZREM', KEYS[2], redis.call('HGET', KEYS[1], 'checkoutId'))
end
i = i + 1
while ARGV[i] do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
return {1, ARGV[1]}`;

/** Records are kept this long after their outcome: for return pages, dedupe and support. */
const RETENTION_MS = 30 * 86_400_000;
/** What was delivered is remembered this long, so a repeat of the same outcome is a no-op. */
export const DELIVERED_RETENTION_MS = 8 * 86_400_000;

/** The checkout store on Redis; every change is one Lua script, so it is atomic. */
export class RedisCheckoutStore implements CheckoutStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private recordKey(checkoutId: string): string {
    return `${this.prefix}:chk:${checkoutId}`;
  }

  /** Checkouts not yet settled and reported, scored by expiry: what the reconciler walks. */
  private get activeKey(): string {
    return `${this.prefix}:chk-active`;
  }

  private serviceKey(serviceId: number): string {
    return `${this.prefix}:chk-service:${serviceId}`;
  }

  private deliveredKey(checkoutId: string): string {
    return `${this.prefix}:delivered:${checkoutId}`;
  }

  private refKey(provider: string, providerRef: string): string {
    return `${this.prefix}:chk-ref:${provider}:${providerRef}`;
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
      3,
      this.serviceKey(input.serviceId),
      this.recordKey(input.checkoutId),
      this.activeKey,
      this.prefix,
      input.checkoutId,
      input.serviceId,
      input.provider,
      input.now.toISOString(),
      input.expiresAt.toISOString(),
      input.expiresAt.getTime(),
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
      2,
      this.recordKey(checkoutId),
      this.activeKey,
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

  async latestForService(serviceId: number): Promise<CheckoutRecord | undefined> {
    const checkoutId = await this.redis.get(this.serviceKey(serviceId));
    return checkoutId ? this.get(checkoutId) : undefined;
  }

  async activeCheckouts(limit: number): Promise<string[]> {
    return this.redis.zrange(this.activeKey, 0, limit - 1);
  }

  async retire(
    checkoutId: string,
    note?: { field: 'cancelDropped'; value: string },
  ): Promise<void> {
    const multi = this.redis.multi().zrem(this.activeKey, checkoutId);
    if (note) multi.hset(this.recordKey(checkoutId), note.field, note.value);
    await multi.exec();
  }

  async recordDelivery(checkoutId: string, kind: NotificationKind): Promise<void> {
    await this.redis.set(this.deliveredKey(checkoutId), kind, 'PX', DELIVERED_RETENTION_MS, 'NX');
  }

  async deliveryOf(checkoutId: string): Promise<NotificationKind | undefined> {
    return ((await this.redis.get(this.deliveredKey(checkoutId))) ?? undefined) as
      NotificationKind | undefined;
  }
}
