import { AppError } from '../errors';
import {
  CHECKOUT_STATES,
  INCIDENT_KINDS,
  isOutcome,
  isPaidWith,
  type ChargeLine,
  type CheckoutRecord,
  type CheckoutState,
  type Money,
  type PaymentIncident,
  type Settlement,
  shopOfCheckout,
  UnreadableRecord,
} from '../checkout/checkout-record';
import type { OpenResult } from '../checkout/ports';
import { SERVICE_ID_RULE, serviceIdOfText } from '../shop/service-id';
import { shopOrEnv } from '../shop/shop-id';
import { TRACEPARENT } from '../infra/traceparent';

/*
 * A checkout record's hash fields and the record they read as: what the store's scripts answer,
 * checked field by field, so data no version of the store wrote is an UnreadableRecord (shown,
 * parked) and never a crash.
 */

/** OPEN_FOR_SERVICE's answer once it did not ask for a retry. */
export type OpenAnswer = [OpenResult['kind'], string, number, string[]];

export function openResult([kind, checkoutId, requestNumber, fields]: OpenAnswer): OpenResult {
  // The script answers with the record's fields: no second round trip to read it.
  const record = writtenRecord(checkoutId, fieldsOf(fields));
  if (kind === 'open') return { kind, record, requestNumber };
  return { kind, record };
}

/** HGETALL's flat answer inside a script ([field, value, ...]) as an object. */
export function fieldsOf(flat: readonly string[]): Record<string, string> {
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
export function readRecord(
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
export function writtenRecord(checkoutId: string, fields: Record<string, string>): CheckoutRecord {
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
export function unreadableError(read: UnreadableRecord): AppError {
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
  for (const field of ['amountMinor', 'collectedMinor', 'interestMinor', 'vendorFeeMinor'] as const)
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
    ...(amount && h.collectedMinor
      ? { collected: { amountMinor: Number(h.collectedMinor), currency: amount.currency } }
      : {}),
    ...(amount && h.interestMinor
      ? { interest: { amountMinor: Number(h.interestMinor), currency: amount.currency } }
      : {}),
    ...(amount && h.vendorFeeMinor
      ? { vendorFee: { amountMinor: Number(h.vendorFeeMinor), currency: amount.currency } }
      : {}),
    // Absent in records written before the connector knew it; a method this version does not
    // know (a later version's) is left out, as an incident that does not read is.
    ...(isPaidWith(h.method) ? { method: h.method } : {}),
    ...settlementOf(h.settlement),
    ...(h.trace && TRACEPARENT.test(h.trace) ? { trace: h.trace } : {}),
    ...(h.paidRecordQueued === '1' ? { paidRecordQueued: true } : {}),
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

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function moneyOf(value: unknown): Money | undefined {
  const money = value as Partial<Money> | undefined;
  return money &&
    Number.isSafeInteger(money.amountMinor) &&
    typeof money.currency === 'string' &&
    /^[A-Z]{3}$/.test(money.currency)
    ? { amountMinor: money.amountMinor as number, currency: money.currency }
    : undefined;
}

/**
 * The settlement (a JSON field, absent in records written before the payment record): each of
 * its figures that reads as what the store wrote, the rest left out, never a crash.
 */
function settlementOf(text: string | undefined): { settlement?: Settlement } {
  if (text === undefined) return {};
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object') return {};
  const providerFee = moneyOf(parsed.providerFee);
  const net = moneyOf(parsed.net);
  const { releaseDate, installments, pixE2e } = parsed;
  const settlement: Settlement = {
    ...(providerFee ? { providerFee } : {}),
    ...(net ? { net } : {}),
    ...(typeof releaseDate === 'string' && DAY.test(releaseDate) ? { releaseDate } : {}),
    ...(Number.isSafeInteger(installments) && (installments as number) > 0
      ? { installments: installments as number }
      : {}),
    ...(typeof pixE2e === 'string' && pixE2e.length <= 64 ? { pixE2e } : {}),
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
