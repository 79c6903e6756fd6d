import { z } from 'zod';
import { AppError } from '../errors';
import type { Money } from './money';

/**
 * The ERP vendor's fee on each payment of a shop whose provider account it connected
 * (docs/shops.md "The vendor's fee"): a percent of the amount and a fixed part, both in
 * centavos once computed. One rounding rule: the percent part is rounded half up to the
 * centavo, then the fixed part is added, and the whole is never more than the amount.
 */
export interface VendorFee {
  /** Hundredths of a percent: 2.5 % is 250. */
  percentHundredths: number;
  fixedMinor: number;
}

/** At most two decimals: a percent (2.5) or reais (1.99). */
function twoDecimals(value: number): boolean {
  return Number(value.toFixed(2)) === value;
}

export const feePercent = z
  .number()
  .min(0)
  .max(100)
  .refine(twoDecimals, 'must have at most two decimals');

export const feeFixed = z
  .number()
  .min(0)
  .max(1_000_000)
  .refine(twoDecimals, 'must have at most two decimals (centavos)');

/** `"vendorFee"` in a shop's document: its own fee, instead of the deployment's. */
export const vendorFeeDocumentSchema = z
  .strictObject({
    percent: feePercent
      .optional()
      .describe('Percent of each payment (`2.5`), at most two decimals.'),
    fixed: feeFixed.optional().describe("Reais added to each payment's fee (`0.50`)."),
  })
  .meta({
    description:
      "The vendor's fee on this shop's payments, instead of `VENDOR_FEE_PERCENT`/`VENDOR_FEE_FIXED`: only for a shop whose provider account is connected (docs/shops.md \"The vendor's fee\").",
  });

export type VendorFeeDocument = z.output<typeof vendorFeeDocumentSchema>;

/** The fee a document or the deployment's variables say, in the units it is computed in. */
export function vendorFeeOf(document: { percent?: number; fixed?: number }): VendorFee {
  return {
    percentHundredths: Math.round((document.percent ?? 0) * 100),
    fixedMinor: Math.round((document.fixed ?? 0) * 100),
  };
}

export function isNoFee(fee: VendorFee): boolean {
  return fee.percentHundredths === 0 && fee.fixedMinor === 0;
}

/**
 * The vendor's fee a checkout asks of a provider, in centavos (0: none): refused where the shop's
 * account cannot take it (`takes` false: pasted keys), which the shop's settings never ask.
 */
export function feeTaken(fee: Money | undefined, takes: boolean, refusal: string): number {
  const minor = fee?.amountMinor ?? 0;
  if (minor > 0 && !takes) throw new AppError('PROVIDER_REJECTED', refusal);
  return minor;
}

/**
 * The fee on `amount`: the percent part rounded half up to the centavo (integer arithmetic,
 * no floating point), plus the fixed part, at most the amount itself.
 */
export function feeOn(amount: Money, fee: VendorFee): Money {
  const percentPart = Math.floor((amount.amountMinor * fee.percentHundredths + 5_000) / 10_000);
  return {
    amountMinor: Math.min(amount.amountMinor, percentPart + fee.fixedMinor),
    currency: amount.currency,
  };
}
