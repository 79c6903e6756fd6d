import { AppError } from '../errors';
import {
  cardOf,
  CHECKOUT_STATES,
  INCIDENT_KINDS,
  isCheckoutId,
  isOutcome,
  PLAN_PART_NAMES,
  type PlanPartName,
  type StoredPlan,
  isPaidWith,
  type ChargeLine,
  type CheckoutRecord,
  type CheckoutState,
  type Money,
  paidAtOf,
  payerOf,
  type PaymentIncident,
  type Settlement,
  shopOfCheckout,
  UnreadableRecord,
} from '../checkout/checkout-record';
import type { OpenResult } from '../checkout/ports';
import { SERVICE_ID_RULE, serviceIdOfText } from '../shop/service-id';
import { shopOrEnv } from '../shop/shop-id';
import { TRACEPARENT } from '../tracing/traceparent';

/*
 * A checkout record's hash fields, checked field by field: data no version of the store wrote is
 * an UnreadableRecord (shown, parked), never a crash.
 */

/** OPEN_FOR_SERVICE's answer once it did not ask for a retry (the record's fields with it). */
export type OpenAnswer = [OpenResult['kind'], string, number, string[]];

export function openResult([kind, checkoutId, requestNumber, fields]: OpenAnswer): OpenResult {
  const record = writtenRecord(checkoutId, fieldsOf(fields));
  if (kind === 'open') return { kind, record, requestNumber };
  return { kind, record };
}

/** A flat answer ([field, value, ...]: HGETALL in a script, ZRANGE WITHSCORES) as pairs. */
export function pairsOf(flat: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    pairs.push([flat[i] as string, flat[i + 1] as string]);
  return pairs;
}

export function fieldsOf(flat: readonly string[]): Record<string, string> {
  return Object.fromEntries(pairsOf(flat));
}

const STATES: ReadonlySet<string> = new Set(CHECKOUT_STATES);
const COUNT = /^\d{1,15}$/;

/** A record from its hash's fields; undefined when there is none. */
export function readRecord(
  checkoutId: string,
  h: Record<string, string>,
): CheckoutRecord | UnreadableRecord | undefined {
  if (!h.checkoutId || !h.state) return undefined;
  const problem = problemOf(h);
  if (problem !== undefined) return new UnreadableRecord(checkoutId, problem);
  const lines = h.lines === undefined ? undefined : linesOf(h.lines);
  if (lines === null) return new UnreadableRecord(checkoutId, 'lines: not JSON');
  const plan = h.plan === undefined ? undefined : planOf(h.plan);
  if (plan === null) return new UnreadableRecord(checkoutId, 'plan: not a plan');
  return { ...recordFrom(h, lines), ...(plan ? { plan } : {}), ...partOf(h) };
}

/** A record the store just wrote, as its script answered it: there must be a readable one. */
export function writtenRecord(checkoutId: string, fields: Record<string, string>): CheckoutRecord {
  const read = readRecord(checkoutId, fields);
  if (read === undefined) throw new Error(`checkout ${checkoutId} not found`);
  if (read instanceof UnreadableRecord) throw unreadableError(read);
  return read;
}

/** What a request or a job meets when its record does not read (the field and why: `cause`, for the log). */
export function unreadableError(read: UnreadableRecord): AppError {
  return new AppError(
    'CHECKOUT_UNREADABLE',
    `Checkout record ${read.checkoutId} cannot be read; a person mends or deletes it (connector checkout status --unreadable).`,
    { cause: read.problem },
  );
}

function problemOf(h: Record<string, string>): string | undefined {
  if (!STATES.has(h.state as string)) return `state: ${h.state?.slice(0, 40)} is no checkout state`;
  if (h.outcome !== undefined && !(STATES.has(h.outcome) && isOutcome(h.outcome as CheckoutState)))
    return 'outcome: not an outcome';
  if (serviceIdOfText(h.serviceId ?? '') === undefined) return `serviceId: not ${SERVICE_ID_RULE}`;
  const counts = ['amountMinor', 'collectedMinor', 'interestMinor', 'vendorFeeMinor'] as const;
  for (const field of [...counts, 'planParts', 'orderMinor'] as const)
    if (h[field] !== undefined && !COUNT.test(h[field])) return `${field}: not a number`;
  if (h.parent !== undefined && !isCheckoutId(h.parent)) return 'parent: not a checkout id';
  if (h.part !== undefined && !PARTS.has(h.part)) return 'part: not a part of a plan';
  if (h.split !== undefined && h.split !== '1' && h.split !== '2') return 'split: not 1 or 2';
  return undefined;
}

const PARTS: ReadonlySet<string> = new Set(PLAN_PART_NAMES);

/** A part checkout's place in its plan, and a planned checkout's part checkouts, oldest first. */
function partOf(
  h: Record<string, string>,
): Pick<
  CheckoutRecord,
  'parent' | 'part' | 'split' | 'partCheckouts' | 'planParts' | 'orderMinor' | 'closing'
> {
  const kids = Object.entries(h)
    .filter(([field]) => field.startsWith('kid:'))
    .sort(([, a], [, b]) => a.localeCompare(b))
    .map(([field]) => field.slice('kid:'.length));
  return {
    ...(h.parent ? { parent: h.parent } : {}),
    ...(h.closing ? { closing: h.closing } : {}),
    ...(h.part ? { part: h.part as PlanPartName } : {}),
    ...(h.split ? { split: Number(h.split) as 1 | 2 } : {}),
    ...(h.planParts ? { planParts: Number(h.planParts) } : {}),
    ...(h.orderMinor ? { orderMinor: Number(h.orderMinor) } : {}),
    ...(kids.length > 0 ? { partCheckouts: kids } : {}),
  };
}

/** A stored plan; null when it does not read as one. */
function planOf(text: string): StoredPlan | null {
  const plan = jsonOf(text) as Partial<StoredPlan> | null | undefined;
  if (!plan || (plan.finishOn !== 'deposit' && plan.finishOn !== 'full')) return null;
  if (!Array.isArray(plan.parts) || plan.parts.length === 0) return null;
  const parts: StoredPlan['parts'] = [];
  for (const part of plan.parts as unknown[]) {
    const p = (part ?? {}) as Record<string, unknown>;
    if (!PARTS.has(p.part as string) || !Number.isSafeInteger(p.amountMinor)) return null;
    parts.push({
      part: p.part as PlanPartName,
      amountMinor: p.amountMinor as number,
      ...(Number.isSafeInteger(p.vendorFeeMinor)
        ? { vendorFeeMinor: p.vendorFeeMinor as number }
        : {}),
      ...(typeof p.dueDate === 'string' && DAY.test(p.dueDate) ? { dueDate: p.dueDate } : {}),
    });
  }
  return { finishOn: plan.finishOn, splitTender: plan.splitTender === true, parts };
}

/** `text` parsed; undefined when it is not JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function linesOf(text: string): ChargeLine[] | null {
  const lines = jsonOf(text);
  return Array.isArray(lines) ? (lines as ChargeLine[]) : null;
}

/** What the provider collected, the interest and the vendor's fee: in the price's currency. */
function paidAmountsOf(
  h: Record<string, string>,
  amount: Money | undefined,
): Pick<CheckoutRecord, 'collected' | 'interest' | 'vendorFee'> {
  if (!amount) return {};
  const of = (minor: string): Money => ({ amountMinor: Number(minor), currency: amount.currency });
  return {
    ...(h.collectedMinor ? { collected: of(h.collectedMinor) } : {}),
    ...(h.interestMinor ? { interest: of(h.interestMinor) } : {}),
    ...(h.vendorFeeMinor ? { vendorFee: of(h.vendorFeeMinor) } : {}),
  };
}

function recordFrom(h: Record<string, string>, lines: ChargeLine[] | undefined): CheckoutRecord {
  const amount: Money | undefined =
    h.amountMinor && h.currency
      ? { amountMinor: Number(h.amountMinor), currency: h.currency }
      : undefined;
  return {
    checkoutId: h.checkoutId as string,
    // Records written before many shops have no shop field: their ids name theirs.
    shop: shopOrEnv(h.shop ?? shopOfCheckout(h.checkoutId as string)),
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
    ...paidAmountsOf(h, amount),
    // Absent in records written before the connector knew it; a method this version does not
    // know (a later version's) is left out, as an incident that does not read is.
    ...(isPaidWith(h.method) ? { method: h.method } : {}),
    ...settlementOf(h.settlement),
    ...(h.trace && TRACEPARENT.test(h.trace) ? { trace: h.trace } : {}),
    ...(h.paidRecordQueued === '1' ? { paidRecordQueued: true } : {}),
    ...erpAcknowledgedOf(h),
    createdAt: h.createdAt ?? '',
    updatedAt: h.updatedAt ?? '',
    expiresAt: h.expiresAt ?? '',
    requests: h.requests ? Number(h.requests) : undefined,
    reachedAt: reachedAtOf(h),
    cancelDroppedFor: h.cancelDropped,
    ...incidentsOf(h),
  };
}

/** The hash's field of when the ERP acknowledged a payment record: `erp:<record id>`. */
export const ERP_ACK_FIELD = 'erp:';

/** When the ERP acknowledged each of the checkout's payment records, by record id. */
function erpAcknowledgedOf(h: Record<string, string>): Pick<CheckoutRecord, 'erpAcknowledged'> {
  const acknowledged = Object.fromEntries(
    Object.entries(h).flatMap(([field, at]) =>
      field.startsWith(ERP_ACK_FIELD) && !Number.isNaN(Date.parse(at))
        ? [[field.slice(ERP_ACK_FIELD.length), at]]
        : [],
    ),
  );
  return Object.keys(acknowledged).length > 0 ? { erpAcknowledged: acknowledged } : {};
}

/** The incidents (`inc:<kind>:<transaction>` fields), oldest first; one that does not read is left out. */
function incidentsOf(h: Record<string, string>): { incidents?: PaymentIncident[] } {
  const incidents = Object.entries(h)
    .filter(([field]) => field.startsWith('inc:'))
    .flatMap(([, value]) => {
      const incident = jsonOf(value) as PaymentIncident | null | undefined;
      const readable = INCIDENT_KINDS.includes(incident?.kind as PaymentIncident['kind']);
      return readable && typeof incident?.at === 'string' ? [incident] : [];
    })
    .sort((a, b) => a.at.localeCompare(b.at));
  return incidents.length > 0 ? { incidents } : {};
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The API Pix's txid: 26 to 35 letters or digits (a `cob`'s), or up to 35 (a received Pix's). */
const PIX_TXID = /^[A-Za-z0-9]{1,35}$/;

function moneyOf(value: unknown): Money | undefined {
  const money = value as Partial<Money> | undefined;
  return money &&
    Number.isSafeInteger(money.amountMinor) &&
    typeof money.currency === 'string' &&
    /^[A-Z]{3}$/.test(money.currency)
    ? { amountMinor: money.amountMinor as number, currency: money.currency }
    : undefined;
}

/** The settlement (absent in records written before the payment record): each figure that reads. */
function settlementOf(text: string | undefined): { settlement?: Settlement } {
  const parsed = jsonOf(text ?? '') as Record<string, unknown> | null | undefined;
  if (!parsed || typeof parsed !== 'object') return {};
  const providerFee = moneyOf(parsed.providerFee);
  const net = moneyOf(parsed.net);
  const { releaseDate, installments, pixE2e, pixTxid, paidAt, institutionCnpj } = parsed;
  const payer = (parsed.payer ?? {}) as Record<string, unknown>;
  const card = (parsed.card ?? {}) as Record<string, unknown>;
  const settlement: Settlement = {
    ...(providerFee ? { providerFee } : {}),
    ...(net ? { net } : {}),
    ...(typeof releaseDate === 'string' && DAY.test(releaseDate) ? { releaseDate } : {}),
    ...(Number.isSafeInteger(installments) && (installments as number) > 0
      ? { installments: installments as number }
      : {}),
    ...(typeof pixE2e === 'string' && pixE2e.length <= 64 ? { pixE2e } : {}),
    ...(typeof pixTxid === 'string' && PIX_TXID.test(pixTxid) ? { pixTxid } : {}),
    // The readers take what is stored as it is: a value of another type is left out.
    ...paidAtOf(typeof paidAt === 'string' ? paidAt : undefined),
    ...payerOf(payer.name, payer.document),
    ...cardOf(card),
    ...(typeof institutionCnpj === 'string' && /^\d{14}$/.test(institutionCnpj)
      ? { institutionCnpj }
      : {}),
  };
  return Object.keys(settlement).length > 0 ? { settlement } : {};
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
