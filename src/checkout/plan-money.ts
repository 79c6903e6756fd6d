import type { Money } from '../payments/money';
import type { PlanPartName } from './checkout-record';

/*
 * The money of a plan (CONTRACT "The payment page", "Money adds up"): an order cut into a deposit
 * and its balance, a part paid two ways (split tender), and the vendor's fee cut across the
 * parts. Every figure is an integer of centavos, and every cut adds up to what it cuts, whatever
 * the rounding: the last share is what the others leave.
 */

/** The least a part may be, in centavos: R$ 1,00 (the providers' own least charge is below it). */
export const MIN_PART_MINOR = 100;

/** A part of a plan, or one of a part's two payments, as the page's form names it. */
export type PartName = PlanPartName | 'split-1' | 'split-2';

export interface PlanPart {
  part: PartName;
  amount: Money;
}

/** Hundredths of a percent from a percent of at most two decimals: 30 is 3000, 12.5 is 1250. */
export function percentHundredthsOf(percent: number): number {
  return Math.round(percent * 100);
}

/**
 * The order cut into a deposit of `percentHundredths` (hundredths of a percent: 1 % to 99 %, as
 * CONTRACT's `"percent": 1..99`, two decimals allowed) of it, rounded half up to the centavo, and
 * the balance, the rest. Undefined when a part would be less than MIN_PART_MINOR: an order that
 * small is paid in full.
 */
export function depositParts(
  order: Money,
  percentHundredths: number,
): [PlanPart, PlanPart] | undefined {
  if (
    !Number.isInteger(percentHundredths) ||
    percentHundredths < 100 ||
    percentHundredths > 9_900
  ) {
    throw new RangeError(`a deposit is 1 to 99 percent, not ${percentHundredths / 100}`);
  }
  const deposit = Math.floor((order.amountMinor * percentHundredths + 5_000) / 10_000);
  const balance = order.amountMinor - deposit;
  if (deposit < MIN_PART_MINOR || balance < MIN_PART_MINOR) return undefined;
  return [
    { part: 'deposit', amount: { amountMinor: deposit, currency: order.currency } },
    { part: 'balance', amount: { amountMinor: balance, currency: order.currency } },
  ];
}

/**
 * A part's split in two, or why not: the first amount must be from `least` to `most` (the page
 * says so in the customer's words; `most` below `least`: the part is too small to split).
 */
export type SplitTender =
  { parts: [PlanPart, PlanPart] } | { refused: { least: number; most: number } };

/**
 * A part paid two ways: the first amount the customer's (`firstMinor`), the second the rest,
 * each at least MIN_PART_MINOR.
 */
export function splitTender(part: Money, firstMinor: number): SplitTender {
  const least = MIN_PART_MINOR;
  const most = part.amountMinor - MIN_PART_MINOR;
  if (!Number.isInteger(firstMinor) || firstMinor < least || firstMinor > most) {
    return { refused: { least, most } };
  }
  return {
    parts: [
      { part: 'split-1', amount: { amountMinor: firstMinor, currency: part.currency } },
      {
        part: 'split-2',
        amount: { amountMinor: part.amountMinor - firstMinor, currency: part.currency },
      },
    ],
  };
}

/**
 * `total` centavos cut in proportion to `weights` (the parts' amounts), by the largest
 * remainder: the shares add up to `total` exactly, each within a centavo of its exact share, and
 * none above its weight when `total` is not above their sum (the vendor's fee never above a
 * part). Weights of zero get nothing.
 */
export function cutAcross(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (!Number.isInteger(total) || total < 0) throw new RangeError(`not centavos: ${total}`);
  if (weights.some((w) => !Number.isInteger(w) || w < 0) || sum === 0) {
    throw new RangeError('weights are centavos, not all zero');
  }
  // Exact whatever the sizes: total * weight may pass 2^53 (R$ 10 million and its fee).
  const whole = BigInt(sum);
  const exact = weights.map((w) => BigInt(total) * BigInt(w));
  const shares = exact.map((e) => Number(e / whole));
  let left = total - shares.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((e, i) => ({ i, remainder: e % whole }))
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const { i } of byRemainder) {
    if (left === 0) break;
    shares[i] = (shares[i] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}

/**
 * An amount in reais as a customer types it (`1234,56`, `1.234,56`, `R$ 1234`, `1234,5`), in
 * centavos; undefined for anything else. A dot is only the thousands' mark, as in pt-BR: `1.234`
 * is R$ 1.234,00, and `12.34` (a decimal dot) is refused rather than read as R$ 12,34 or 1.234.
 */
export function centavosOfReais(typed: string): number | undefined {
  const match = /^\s*(?:R\$\s*)?(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?\s*$/.exec(typed);
  if (!match) return undefined;
  const reais = Number((match[1] ?? '').replace(/\./g, ''));
  const centavos = Number((match[2] ?? '').padEnd(2, '0'));
  const total = reais * 100 + centavos;
  return Number.isSafeInteger(total) ? total : undefined;
}
