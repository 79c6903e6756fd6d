import { AppError } from '../errors';
import type { RedisCommands } from '../infra/redis';
import {
  CHECKOUT_STATES,
  INCIDENT_KINDS,
  isOutcome,
  statesLeadingTo,
  type ChargeLine,
  type CheckoutRecord,
  type CheckoutState,
  type Money,
  type PaymentIncident,
  shopOfCheckout,
  UnreadableRecord,
} from '../checkout/checkout-record';
import { SERVICE_ID_RULE, serviceIdOfText } from '../shops/service-id';
import { ENV_SHOP_ID } from '../shops/shop-id';
import type {
  CheckoutStore,
  OpenResult,
  OutcomeFields,
  ParkedUnreadable,
  ProviderCheckoutAttach,
} from '../checkout/ports';
import { runScript } from '../infra/redis-scripts';
import { checkoutKeys, type CheckoutKeys } from './checkout-keys';
import { ADD_INCIDENT, ATTACH, OPEN_FOR_SERVICE, PARK, TRANSITION } from './checkout-scripts';

/** Records are kept this long after their outcome: for return pages, dedupe and support. */
const RETENTION_MS = 30 * 86_400_000;
/** Providers retry webhooks for up to 3 days; events are remembered longer. */
const EVENT_RETENTION_MS = 7 * 86_400_000;
/** The most checkouts of one service a story shows. */
const HISTORY_SHOWN = 100;
/** Parked checkouts are remembered as long as BullMQ keeps their failed jobs. */
const KEEP_PARKED_MS = 30 * 86_400_000;

/** Reads of a service's pointer that a concurrent change may invalidate before one succeeds. */
const OPEN_TRIES = 5;

/**
 * One shop's checkouts on Redis; every change is one Lua script, so it is atomic, and touches
 * only that shop's keys, all under its hash tag (one slot of a Cluster). A checkout id of another
 * shop is never found here.
 */
export class RedisCheckoutStore implements CheckoutStore {
  private readonly keys: CheckoutKeys;

  /**
   * `firstLookMs`: a checkout that changed is due for a reconciler look this long after, unless
   * it changes again first (half the reconciler's interval: with the next pass within an
   * interval and a pass's budget of 0.8 of one, a lost webhook heals within 2.3 intervals).
   */
  constructor(
    private readonly redis: RedisCommands,
    prefix: string,
    readonly shop: string,
    private readonly options: {
      firstLookMs: number;
      /** The scope of the shop's keys (src/infra/keyspace.ts `shopScope`); its id by default. */
      scope?: string;
    } = { firstLookMs: 30_000 },
  ) {
    this.keys = checkoutKeys(prefix, options.scope ?? shop);
  }

  lookedAtBy(now: Date): Date {
    // The first look is due at half an interval (firstLookMs); a pass runs every interval.
    return new Date(this.firstLook(now) + 2 * this.options.firstLookMs);
  }

  /** The due time of a checkout that changed at `now`. */
  private firstLook(now: Date): number {
    return now.getTime() + this.options.firstLookMs;
  }

  async openForService(input: {
    checkoutId: string;
    serviceId: number;
    provider: string;
    now: Date;
    expiresAt: Date;
  }): Promise<OpenResult> {
    for (let attempt = 1; ; attempt += 1) {
      // The script may touch only keys it is given: the record the pointer names is read first,
      // and the script answers 'retry' when another request moved the pointer meanwhile.
      const current = (await this.redis.get(this.keys.service(input.serviceId))) ?? '';
      const answer = (await runScript(
        this.redis,
        OPEN_FOR_SERVICE,
        5,
        this.keys.service(input.serviceId),
        this.keys.record(input.checkoutId),
        this.keys.due,
        this.keys.history(input.serviceId),
        this.keys.record(current || input.checkoutId),
        current,
        input.checkoutId,
        input.serviceId,
        input.provider,
        input.now.toISOString(),
        input.expiresAt.toISOString(),
        this.firstLook(input.now),
        input.now.getTime(),
        // Longer than any record is kept, renewed by each new checkout of the service.
        2 * RETENTION_MS,
        this.shop,
      )) as ['retry'] | OpenAnswer;
      if (answer[0] !== 'retry') return openResult(answer);
      if (attempt >= OPEN_TRIES) {
        throw new Error(`the checkout pointer of service ${input.serviceId} kept moving`);
      }
    }
  }

  async get(checkoutId: string): Promise<CheckoutRecord | undefined> {
    const read = readRecord(checkoutId, await this.redis.hgetall(this.keys.record(checkoutId)));
    if (read instanceof UnreadableRecord) throw unreadableError(read);
    return read;
  }

  async getMany(
    checkoutIds: readonly string[],
  ): Promise<Array<CheckoutRecord | UnreadableRecord | undefined>> {
    if (checkoutIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const checkoutId of checkoutIds) pipeline.hgetall(this.keys.record(checkoutId));
    const answers = (await pipeline.exec()) ?? [];
    return answers.map(([error, fields], i) => {
      if (error) throw error;
      return readRecord(checkoutIds[i] as string, fields as Record<string, string>);
    });
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
  ): Promise<CheckoutRecord> {
    const attached = await runScript(
      this.redis,
      ATTACH,
      3,
      this.keys.record(checkoutId),
      this.keys.ref(attach.provider, attach.providerRef),
      this.keys.due,
      attach.providerRef,
      attach.url,
      attach.amount.amountMinor,
      attach.amount.currency,
      JSON.stringify(attach.lines),
      now.toISOString(),
      RETENTION_MS,
      this.firstLook(now),
    );
    return writtenRecord(checkoutId, Array.isArray(attached) ? fieldsOf(attached as string[]) : {});
  }

  async transition(
    checkoutId: string,
    to: CheckoutState,
    fields: OutcomeFields,
    now: Date,
  ): Promise<{ moved: boolean; state: CheckoutState | undefined }> {
    const pairs = Object.entries(fields).flatMap(([k, v]) =>
      v === undefined ? [] : [k, String(v)],
    );
    const [moved, state] = (await runScript(
      this.redis,
      TRANSITION,
      3,
      this.keys.record(checkoutId),
      this.keys.due,
      this.keys.parked,
      to,
      isOutcome(to) ? '1' : '0',
      now.toISOString(),
      RETENTION_MS,
      this.firstLook(now),
      ...statesLeadingTo(to),
      '--',
      ...pairs,
    )) as [number, string | null];
    return { moved: moved === 1, state: (state ?? undefined) as CheckoutState | undefined };
  }

  async addIncident(
    checkoutId: string,
    incident: PaymentIncident,
  ): Promise<'added' | 'known' | 'gone'> {
    const field = `inc:${incident.kind}:${incident.transactionId ?? '-'}`;
    const added = (await runScript(
      this.redis,
      ADD_INCIDENT,
      1,
      this.keys.record(checkoutId),
      field,
      JSON.stringify(incident),
      RETENTION_MS,
    )) as number;
    return added === 1 ? 'added' : added === 0 ? 'known' : 'gone';
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
    const records = await this.getMany(ids);
    // Records past their retention are gone: their ids leave the list too.
    const gone = ids.filter((_, i) => records[i] === undefined);
    if (gone.length > 0) await this.redis.zrem(key, ...gone);
    const unreadable = records.filter((r): r is UnreadableRecord => r instanceof UnreadableRecord);
    const readable = records.filter(
      (r): r is CheckoutRecord => r !== undefined && !(r instanceof UnreadableRecord),
    );
    // An unreadable record has no creation time to sort by: it comes first, for a person to see.
    return [...unreadable, ...readable.sort((a, b) => b.createdAt.localeCompare(a.createdAt))];
  }

  async dueCheckouts(now: Date, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.due, '-inf', now.getTime(), 'LIMIT', 0, limit);
  }

  async scheduleLooks(looks: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void> {
    if (looks.length === 0) return;
    const pairs = looks.flatMap((look) => [look.at.getTime(), look.checkoutId]);
    // XX: a checkout reported or parked meanwhile is not put back in line.
    await this.redis.zadd(this.keys.due, 'XX', ...pairs);
  }

  async inLine(checkoutId: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.due, checkoutId)) !== null;
  }

  async reconcileBacklog(
    now: Date,
  ): Promise<{ due: number; oldestDueAt: Date | undefined; unreadable: number }> {
    const [due, first, unreadable] = await Promise.all([
      this.redis.zcount(this.keys.due, '-inf', now.getTime()),
      this.redis.zrange(this.keys.due, 0, 0, 'WITHSCORES'),
      this.redis.zcard(this.keys.unreadable),
    ]);
    const oldestDueAt = due > 0 && first[1] !== undefined ? new Date(Number(first[1])) : undefined;
    return { due, oldestDueAt, unreadable };
  }

  async parkFailedDelivery(checkoutId: string, now: Date): Promise<void> {
    await runScript(
      this.redis,
      PARK,
      3,
      this.keys.record(checkoutId),
      this.keys.due,
      this.keys.parked,
      now.getTime(),
      KEEP_PARKED_MS,
      checkoutId,
    );
  }

  async parkUnreadable(checkoutId: string, now: Date): Promise<void> {
    // Both keys are under the shop's tag: one slot, so one MULTI on a Cluster too.
    await this.redis
      .multi()
      .zrem(this.keys.due, checkoutId)
      .zadd(this.keys.unreadable, now.getTime(), checkoutId)
      .exec();
  }

  async unreadableCheckouts(limit: number): Promise<ParkedUnreadable[]> {
    const listed = await this.redis.zrange(this.keys.unreadable, 0, limit - 1, 'WITHSCORES');
    const parked = pairsOf(listed);
    const records = await this.getMany(parked.map(([checkoutId]) => checkoutId));
    // A record gone (purged, or deleted by the person who looked) leaves the set.
    const gone = parked
      .filter((_, i) => records[i] === undefined)
      .map(([checkoutId]) => checkoutId);
    if (gone.length > 0) await this.redis.zrem(this.keys.unreadable, ...gone);
    return parked.flatMap(([checkoutId, score], i) => {
      const record = records[i];
      if (record === undefined) return [];
      const problem = record instanceof UnreadableRecord ? record.problem : undefined;
      return [{ checkoutId, parkedAt: new Date(Number(score)), problem }];
    });
  }

  async eventHandled(provider: string, eventId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.event(provider, eventId))) === 1;
  }

  async markEventHandled(provider: string, eventId: string): Promise<void> {
    await this.redis.set(this.keys.event(provider, eventId), '1', 'PX', EVENT_RETENTION_MS);
  }

  async retire(
    checkoutId: string,
    note?: { field: 'cancelDropped'; value: string },
  ): Promise<void> {
    const multi = this.redis.multi().zrem(this.keys.due, checkoutId);
    if (note) multi.hset(this.keys.record(checkoutId), note.field, note.value);
    await multi.exec();
  }
}

/** ZRANGE ... WITHSCORES's flat answer as [member, score] pairs. */
function pairsOf(flat: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    pairs.push([flat[i] as string, flat[i + 1] as string]);
  return pairs;
}

/** OPEN_FOR_SERVICE's answer once it did not ask for a retry. */
type OpenAnswer = [OpenResult['kind'], string, number, string[]];

function openResult([kind, checkoutId, requestNumber, fields]: OpenAnswer): OpenResult {
  // The script answers with the record's fields: no second round trip to read it.
  const record = writtenRecord(checkoutId, fieldsOf(fields));
  if (kind === 'open') return { kind, record, requestNumber };
  return { kind, record };
}

/** HGETALL's flat answer inside a script ([field, value, ...]) as an object. */
function fieldsOf(flat: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

const STATES: ReadonlySet<string> = new Set(CHECKOUT_STATES);
const COUNT = /^\d{1,15}$/;

/**
 * A record from its hash's fields; undefined when there is none; an `UnreadableRecord` when its
 * fields do not read as a checkout: data no version of the store wrote, for a person to look at.
 */
function readRecord(
  checkoutId: string,
  h: Record<string, string>,
): CheckoutRecord | UnreadableRecord | undefined {
  if (!h.checkoutId || !h.state) return undefined;
  const problem = problemOf(h);
  if (problem !== undefined) return new UnreadableRecord(checkoutId, problem);
  const lines = h.lines === undefined ? undefined : linesOf(h.lines);
  if (lines === null) return new UnreadableRecord(checkoutId, 'lines: not JSON');
  return recordFrom(h, lines);
}

/** A record the store just wrote, as its script answered it: there must be a readable one. */
function writtenRecord(checkoutId: string, fields: Record<string, string>): CheckoutRecord {
  const read = readRecord(checkoutId, fields);
  if (read === undefined) throw new Error(`checkout ${checkoutId} not found`);
  if (read instanceof UnreadableRecord) throw unreadableError(read);
  return read;
}

/**
 * What a request or a job meets when the record it needs does not read: an answer that says
 * which record and what a person does about it (the field and why go to the log, as `cause`),
 * never a crash.
 */
function unreadableError(read: UnreadableRecord): AppError {
  return new AppError(
    'CHECKOUT_UNREADABLE',
    `Checkout record ${read.checkoutId} cannot be read; a person mends or deletes it (connector checkout status --unreadable).`,
    { cause: read.problem },
  );
}

/** What makes a record's plain fields unreadable, if anything: the field and why. */
function problemOf(h: Record<string, string>): string | undefined {
  if (!STATES.has(h.state as string)) return `state: ${h.state?.slice(0, 40)} is no checkout state`;
  if (h.outcome !== undefined && !(STATES.has(h.outcome) && isOutcome(h.outcome as CheckoutState)))
    return 'outcome: not an outcome';
  if (serviceIdOfText(h.serviceId ?? '') === undefined) return `serviceId: not ${SERVICE_ID_RULE}`;
  for (const field of ['amountMinor', 'collectedMinor', 'interestMinor'] as const)
    if (h[field] !== undefined && !COUNT.test(h[field])) return `${field}: not a number`;
  return undefined;
}

/** The charge lines, or null when the field is not a JSON array. */
function linesOf(text: string): ChargeLine[] | null {
  try {
    const lines: unknown = JSON.parse(text);
    return Array.isArray(lines) ? (lines as ChargeLine[]) : null;
  } catch {
    return null;
  }
}

/** A record from fields `problemOf` found nothing wrong with. */
function recordFrom(h: Record<string, string>, lines: ChargeLine[] | undefined): CheckoutRecord {
  const amount: Money | undefined =
    h.amountMinor && h.currency
      ? { amountMinor: Number(h.amountMinor), currency: h.currency }
      : undefined;
  return {
    checkoutId: h.checkoutId as string,
    // Records written before many shops have no shop field: their ids name theirs.
    shop: h.shop ?? shopOfCheckout(h.checkoutId as string) ?? ENV_SHOP_ID,
    serviceId: Number(h.serviceId),
    state: h.state as CheckoutState,
    outcome: h.outcome as CheckoutRecord['outcome'],
    provider: h.provider ?? '',
    providerRef: h.providerRef,
    url: h.url,
    amount,
    lines,
    transactionId: h.transactionId,
    reason: h.reason,
    ...(amount && h.collectedMinor
      ? { collected: { amountMinor: Number(h.collectedMinor), currency: amount.currency } }
      : {}),
    ...(amount && h.interestMinor
      ? { interest: { amountMinor: Number(h.interestMinor), currency: amount.currency } }
      : {}),
    createdAt: h.createdAt ?? '',
    updatedAt: h.updatedAt ?? '',
    expiresAt: h.expiresAt ?? '',
    requests: h.requests ? Number(h.requests) : undefined,
    reachedAt: reachedAtOf(h),
    cancelDroppedFor: h.cancelDropped,
    ...incidentsOf(h),
  };
}

/** The incidents (`inc:<kind>:<transaction>` fields), oldest first; one that does not read is left out. */
function incidentsOf(h: Record<string, string>): { incidents?: PaymentIncident[] } {
  const incidents = Object.entries(h)
    .filter(([field]) => field.startsWith('inc:'))
    .flatMap(([, value]) => {
      try {
        const incident = JSON.parse(value) as PaymentIncident;
        return INCIDENT_KINDS.includes(incident.kind) && typeof incident.at === 'string'
          ? [incident]
          : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => a.at.localeCompare(b.at));
  return incidents.length > 0 ? { incidents } : {};
}

/** When each state was first reached (`at_<state>` fields; `requested` is the creation time). */
function reachedAtOf(h: Record<string, string>): CheckoutRecord['reachedAt'] {
  const reached: CheckoutRecord['reachedAt'] = { requested: h.createdAt };
  for (const state of CHECKOUT_STATES) {
    const at = h[`at_${state}`];
    if (at) reached[state] = at;
  }
  return reached;
}
