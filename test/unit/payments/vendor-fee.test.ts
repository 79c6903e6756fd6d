import {
  feeOn,
  isNoFee,
  vendorFeeDocumentSchema,
  vendorFeeOf,
} from '../../../src/payments/vendor-fee';

/* The vendor's fee (docs/shops.md "The vendor's fee"): centavos, one rounding rule. */
const brl = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });

describe("the vendor's fee", () => {
  it('rounds the percent part half up to the centavo, then adds the fixed part', () => {
    const fee = vendorFeeOf({ percent: 2.5, fixed: 0.5 });
    expect(fee).toEqual({ percentHundredths: 250, fixedMinor: 50 });
    // R$ 1.234,56 at 2.5 %: 3.086,4 centavos -> 3.086; plus 50.
    expect(feeOn(brl(123_456), fee)).toEqual(brl(3_136));
    // Exactly half a centavo rounds up: R$ 0,21 at 2.5 % is 0.525 -> 1 centavo.
    expect(feeOn(brl(21), vendorFeeOf({ percent: 2.5 }))).toEqual(brl(1));
    // Just under half rounds down: R$ 0,19 at 2.5 % is 0.475 -> 0.
    expect(feeOn(brl(19), vendorFeeOf({ percent: 2.5 }))).toEqual(brl(0));
  });

  it('is never more than the amount, and nothing when none is set', () => {
    expect(feeOn(brl(100), vendorFeeOf({ fixed: 5 }))).toEqual(brl(100));
    expect(feeOn(brl(100), vendorFeeOf({ percent: 100 }))).toEqual(brl(100));
    expect(isNoFee(vendorFeeOf({}))).toBe(true);
    expect(isNoFee(vendorFeeOf({ percent: 0.01 }))).toBe(false);
  });

  it('computes in integers: percents that float arithmetic gets wrong come out exact', () => {
    // 1.15 * 100 is 114.99999999999999 in floating point.
    expect(vendorFeeOf({ percent: 1.15, fixed: 0.29 })).toEqual({
      percentHundredths: 115,
      fixedMinor: 29,
    });
    expect(feeOn(brl(1_000_000), vendorFeeOf({ percent: 1.15 }))).toEqual(brl(11_500));
  });

  it("a shop's document says its fee with at most two decimals, 0 to 100 percent", () => {
    expect(vendorFeeDocumentSchema.safeParse({ percent: 1.5, fixed: 0.3 }).success).toBe(true);
    for (const wrong of [
      { percent: 1.555 },
      { percent: 101 },
      { fixed: -1 },
      { fixed: 0.001 },
      { other: 1 },
    ])
      expect(vendorFeeDocumentSchema.safeParse(wrong).success).toBe(false);
  });
});
