import type { RedisCommands } from '../redis/redis';
import {
  isOutcome,
  statesLeadingTo,
  type CheckoutRecord,
  type CheckoutState,
  type PaidWith,
  type PaymentIncident,
  UnreadableRecord,
} from '../checkout/checkout-record';
import {
  MAX_PART_CHECKOUTS,
  type CheckoutRecords,
  type OpenPartResult,
  type OpenResult,
  type OutcomeFields,
  type PartInput,
  type PlanAttach,
  type ProviderCheckoutAttach,
} from '../checkout/ports';
import { firstWatchAt } from '../checkout/pix-watch';
import { runScript } from '../redis/redis-scripts';
import {
  ERP_ACK_FIELD,
  fieldsOf,
  openResult,
  readRecord,
  unreadableError,
  writtenRecord,
  type OpenAnswer,
} from './checkout-codec';
import { checkoutKeys, type CheckoutKeys } from './checkout-keys';
import {
  ADD_INCIDENT,
  ATTACH,
  ATTACH_PLAN,
  ARE_MEMBERS,
  KEEP_AT_LEAST,
  MARK_CLOSING,
  MARK_PAID_RECORD,
  MARK_RECORD_ACKNOWLEDGED,
  OPEN_FOR_SERVICE,
  OPEN_PART,
  TRANSITION,
  UPDATE_METHOD,
} from './checkout-scripts';
import { readRecords } from './read-records';

/**
 * Records are kept this long after their outcome by default (CHECKOUT_RETENTION_DAYS): for return
 * pages, support, and what follows a payment (refunds, chargebacks, late payments).
 */
const DEFAULT_RETENTION_MS = 180 * 86_400_000;
/** The most checkouts of one service a story shows, and the service's list keeps. */
const HISTORY_SHOWN = 100;
/** How long a give-back of a payment is another runner's to finish before this one asks. */
const REFUND_CLAIM_MS = 2 * 60_000;
/** Reads of a service's pointer that a concurrent change may invalidate before one succeeds. */
const OPEN_TRIES = 5;

type OpenInput = Parameters<CheckoutRecords['openForService']>[0];

/**
 * One shop's checkout records on Redis; every change is one Lua script on that shop's keys, all
 * under its hash tag (one slot of a Cluster), and also sets the checkout's place in the
 * reconciler's line, in the same script. A checkout id of another shop is never found here.
 */
export class RedisCheckoutStore implements CheckoutRecords {
  private readonly keys: CheckoutKeys;
  private readonly retentionMs: number;

  constructor(
    private readonly redis: RedisCommands,
    prefix: string,
    readonly shop: string,
    /** `scope`: keyspace.ts `shopScope`, the shop's id by default. */
    options: { scope?: string; retentionMs?: number } = {},
  ) {
    this.keys = checkoutKeys(prefix, options.scope ?? shop);
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  async openForService(input: OpenInput): Promise<OpenResult> {
    for (let attempt = 1; ; attempt += 1) {
      // The script may touch only keys it is given: the record the pointer names is read first,
      // and the script answers 'retry' when another request moved the pointer meanwhile.
      const current = (await this.redis.get(this.keys.service(input.serviceId))) ?? '';
      const answer = await this.open(input, current);
      if (answer[0] !== 'retry') return openResult(answer);
      if (attempt >= OPEN_TRIES) {
        throw new Error(`the checkout pointer of service ${input.serviceId} kept moving`);
      }
    }
  }

  private async open(input: OpenInput, current: string): Promise<['retry'] | OpenAnswer> {
    const { checkoutId, serviceId, now } = input;
    return (await runScript(
      this.redis,
      OPEN_FOR_SERVICE,
      5,
      this.keys.service(serviceId),
      this.keys.record(checkoutId),
      this.keys.due,
      this.keys.history(serviceId),
      this.keys.record(current || checkoutId),
      current,
      checkoutId,
      serviceId,
      input.provider,
      now.toISOString(),
      input.expiresAt.toISOString(),
      input.lookAt.getTime(),
      now.getTime(),
      // Longer than any record is kept, renewed by each new checkout of the service.
      2 * this.retentionMs,
      this.shop,
      input.trace ?? '',
      HISTORY_SHOWN,
    )) as ['retry'] | OpenAnswer;
  }

  async get(checkoutId: string): Promise<CheckoutRecord | undefined> {
    const read = readRecord(checkoutId, await this.redis.hgetall(this.keys.record(checkoutId)));
    if (read instanceof UnreadableRecord) throw unreadableError(read);
    return read;
  }

  getMany(
    checkoutIds: readonly string[],
  ): Promise<Array<CheckoutRecord | UnreadableRecord | undefined>> {
    return readRecords(this.redis, this.keys, checkoutIds);
  }

  async findByProviderRef(
    provider: string,
    providerRef: string,
  ): Promise<CheckoutRecord | undefined> {
    const checkoutId = await this.redis.get(this.keys.ref(provider, providerRef));
    return checkoutId ? this.get(checkoutId) : undefined;
  }

  async attachProviderCheckout(
    checkoutId: string,
    attach: ProviderCheckoutAttach,
    now: Date,
    lookAt: Date,
  ): Promise<CheckoutRecord> {
    const { providerRef, amount } = attach;
    const ref = this.keys.ref(attach.provider, providerRef);
    const keys = [this.keys.record(checkoutId), ref, this.keys.due];
    const lines = JSON.stringify(attach.lines);
    const written = [providerRef, attach.url, amount.amountMinor, amount.currency, lines];
    const times = [now.toISOString(), this.retentionMs, lookAt.getTime()];
    const fee = attach.vendorFee?.amountMinor ?? '';
    const attached = await runScript(this.redis, ATTACH, 3, ...keys, ...written, ...times, fee);
    return writtenRecord(checkoutId, Array.isArray(attached) ? fieldsOf(attached as string[]) : {});
  }

  async attachPlan(
    checkoutId: string,
    attach: PlanAttach,
    now: Date,
    lookAt: Date,
  ): Promise<CheckoutRecord> {
    const { amount } = attach;
    const keys = [this.keys.record(checkoutId), this.keys.due, this.keys.plans];
    const written = [attach.url, amount.amountMinor, amount.currency, JSON.stringify(attach.lines)];
    const plan = JSON.stringify(attach.plan);
    const fee = attach.vendorFee?.amountMinor ?? '';
    const times = [now.toISOString(), lookAt.getTime(), attach.expiresAt?.toISOString() ?? ''];
    const attached = await runScript(
      this.redis,
      ATTACH_PLAN,
      3,
      ...keys,
      ...written,
      plan,
      fee,
      ...times,
    );
    return writtenRecord(checkoutId, Array.isArray(attached) ? fieldsOf(attached as string[]) : {});
  }

  async openPart(input: PartInput): Promise<OpenPartResult> {
    const parent = this.keys.record(input.parentId);
    for (let attempt = 1; ; attempt += 1) {
      // As openForService: the part checkout the slot names is read first, and given as a key.
      const current = (await this.redis.hget(parent, input.slot)) ?? '';
      const answer = (await runScript(
        this.redis,
        OPEN_PART,
        4,
        parent,
        this.keys.record(input.checkoutId),
        this.keys.due,
        this.keys.record(current || input.checkoutId),
        input.slot,
        current,
        input.checkoutId,
        input.provider,
        input.now.toISOString(),
        input.expiresAt.toISOString(),
        input.lookAt.getTime(),
        input.part,
        input.split ?? '',
        this.shop,
        this.retentionMs,
        input.planParts,
        input.orderMinor,
        MAX_PART_CHECKOUTS,
      )) as [string, string?, string[]?];
      const [kind, checkoutId = '', fields = []] = answer;
      if (kind === 'closed' || kind === 'gone' || kind === 'full') return { kind };
      if (kind === 'open' || kind === 'created') {
        return { kind, record: writtenRecord(checkoutId, fieldsOf(fields)) };
      }
      if (attempt >= OPEN_TRIES) throw new Error(`the slot ${input.slot} kept moving`);
    }
  }

  /** Whether each service has had a checkout with a plan (one round trip). */
  async plannedServices(serviceIds: readonly number[]): Promise<boolean[]> {
    if (serviceIds.length === 0) return [];
    const ids = serviceIds.map(String);
    const found = (await runScript(
      this.redis,
      ARE_MEMBERS,
      1,
      this.keys.plans,
      ...ids,
    )) as number[];
    return found.map((one) => one === 1);
  }

  /** A service whose planned checkout is gone: the sync stops asking for its payment. */
  async forgetPlannedService(serviceId: number): Promise<void> {
    await this.redis.srem(this.keys.plans, String(serviceId));
  }

  async markClosing(checkoutId: string, now: Date): Promise<void> {
    const key = this.keys.record(checkoutId);
    await runScript(this.redis, MARK_CLOSING, 1, key, now.toISOString());
  }

  async keepUntil(
    records: ReadonlyArray<Pick<CheckoutRecord, 'checkoutId' | 'provider' | 'providerRef'>>,
    forMs: number,
  ): Promise<void> {
    const keys = records.flatMap((record) => [
      this.keys.record(record.checkoutId),
      ...this.refOf(record),
    ]);
    if (keys.length === 0) return;
    const keep = Math.max(0, Math.round(forMs)) + this.retentionMs;
    await runScript(this.redis, KEEP_AT_LEAST, keys.length, ...keys, keep);
  }

  async claimRefund(checkoutId: string): Promise<boolean> {
    const key = this.keys.refunding(checkoutId);
    return (await this.redis.set(key, '1', 'PX', REFUND_CLAIM_MS, 'NX')) === 'OK';
  }

  async releaseRefund(checkoutId: string): Promise<void> {
    await this.redis.del(this.keys.refunding(checkoutId));
  }

  async transition(
    checkoutId: string,
    to: CheckoutState,
    fields: OutcomeFields,
    now: Date,
    lookAt: Date,
    providerCheckout?: { provider: string; providerRef?: string },
  ): Promise<{ moved: boolean; state: CheckoutState | undefined }> {
    // An outcome keeps the provider's reference as long as the record: a refund's webhook
    // months later still finds its checkout.
    const ref = isOutcome(to) ? this.refOf(providerCheckout) : [];
    // A field that is an object (the settlement) is kept as JSON.
    const pairs = Object.entries(fields).flatMap(([k, v]) =>
      v === undefined ? [] : [k, typeof v === 'object' ? JSON.stringify(v) : String(v)],
    );
    const lines = [this.keys.due, this.keys.parked, this.keys.watch];
    const keys = [this.keys.record(checkoutId), ...lines, ...ref];
    const times = [now.toISOString(), this.retentionMs, lookAt.getTime(), +firstWatchAt(now)];
    const args = [to, isOutcome(to) ? '1' : '0', ...times, ...statesLeadingTo(to), '--', ...pairs];
    const answer = await runScript(this.redis, TRANSITION, keys.length, ...keys, ...args);
    const [moved, state] = answer as [number, string | null];
    return { moved: moved === 1, state: (state ?? undefined) as CheckoutState | undefined };
  }

  async markRecordAcknowledged(checkoutId: string, recordId: string, at: Date): Promise<void> {
    const field = `${ERP_ACK_FIELD}${recordId}`;
    const key = this.keys.record(checkoutId);
    await runScript(this.redis, MARK_RECORD_ACKNOWLEDGED, 1, key, field, at.toISOString());
  }

  async markPaidRecordQueued(checkoutId: string): Promise<void> {
    await runScript(this.redis, MARK_PAID_RECORD, 1, this.keys.record(checkoutId));
  }

  async updateMethod(checkoutId: string, method: PaidWith, now: Date): Promise<boolean> {
    const key = this.keys.record(checkoutId);
    return (await runScript(this.redis, UPDATE_METHOD, 1, key, method, now.toISOString())) === 1;
  }

  async addIncident(
    checkoutId: string,
    incident: PaymentIncident,
    providerCheckout?: { provider: string; providerRef?: string },
  ): Promise<'added' | 'known' | 'gone'> {
    const field = `inc:${incident.kind}:${incident.transactionId ?? '-'}`;
    const keys = [this.keys.record(checkoutId), ...this.refOf(providerCheckout)];
    const args = [field, JSON.stringify(incident), this.retentionMs];
    const added = await runScript(this.redis, ADD_INCIDENT, keys.length, ...keys, ...args);
    return added === 1 ? 'added' : added === 0 ? 'known' : 'gone';
  }

  /** A checkout's provider index, as a script's optional last key. */
  private refOf(checkout?: { provider: string; providerRef?: string }): string[] {
    return checkout?.providerRef ? [this.keys.ref(checkout.provider, checkout.providerRef)] : [];
  }

  async latestForService(serviceId: number): Promise<CheckoutRecord | undefined> {
    const checkoutId = await this.redis.get(this.keys.service(serviceId));
    return checkoutId ? this.get(checkoutId) : undefined;
  }

  async checkoutsOfService(serviceId: number): Promise<Array<CheckoutRecord | UnreadableRecord>> {
    const key = this.keys.history(serviceId);
    const [listed, latest] = await Promise.all([
      this.redis.zrevrange(key, 0, HISTORY_SHOWN - 1),
      // Checkouts opened before the history existed are known by the service's pointer alone.
      this.redis.get(this.keys.service(serviceId)),
    ]);
    const ids = latest && !listed.includes(latest) ? [...listed, latest] : listed;
    // Records past their retention are gone, their ids left in the list: a read writes nothing
    // (the CLI's, as a Redis user that may not write); the list is bounded as checkouts open.
    const records = await this.getMany(ids);
    const unreadable = records.filter((r): r is UnreadableRecord => r instanceof UnreadableRecord);
    const readable = records.filter(
      (r): r is CheckoutRecord => r !== undefined && !(r instanceof UnreadableRecord),
    );
    // An unreadable record has no creation time to sort by: it comes first, for a person to see.
    return [...unreadable, ...readable.sort((a, b) => b.createdAt.localeCompare(a.createdAt))];
  }
}
