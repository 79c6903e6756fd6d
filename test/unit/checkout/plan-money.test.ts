import fc from 'fast-check';
import {
  centavosOfReais,
  cutAcross,
  depositParts,
  MIN_PART_MINOR,
  percentHundredthsOf,
  splitTender,
} from '../../../src/checkout/plan-money';

/*
 * The money of a plan (CONTRACT "Money adds up"), over amounts, percents and split amounts: the
 * parts add up to the order in centavos whatever the rounding, a split to its part, and the
 * vendor's fee cut across parts to the fee of the whole, never more than a part.
 */
const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });
/** An order: a centavo to R$ 10 million (a furniture order is R$ 5,000 to 30,000). */
const orders = fc.integer({ min: 1, max: 1_000_000_000 });
/** A deposit's percent in hundredths: 1 % to 99 % (two decimals allowed). */
const percents = fc.integer({ min: 100, max: 9_900 });

describe('a deposit and its balance', () => {
  it('add up to the order, the deposit the percent of it rounded half up, each at least R$ 1,00', () => {
    fc.assert(
      fc.property(orders, percents, (order, hundredths) => {
        const parts = depositParts(BRL(order), hundredths);
        const exact = (order * hundredths) / 10_000;
        if (parts === undefined) {
          // Only an order too small to cut in two parts of R$ 1,00 is paid in full.
          const deposit = Math.floor(exact + 0.5);
          return deposit < MIN_PART_MINOR || order - deposit < MIN_PART_MINOR;
        }
        const [deposit, balance] = parts;
        return (
          deposit.part === 'deposit' &&
          balance.part === 'balance' &&
          deposit.amount.amountMinor + balance.amount.amountMinor === order &&
          Math.abs(deposit.amount.amountMinor - exact) <= 0.5 &&
          deposit.amount.amountMinor >= MIN_PART_MINOR &&
          balance.amount.amountMinor >= MIN_PART_MINOR
        );
      }),
    );
  });

  it.each([
    // 30 % of R$ 10.000,01 is R$ 3.000,003: R$ 3.000,00, the balance R$ 7.000,01.
    [1_000_001, 30, 300_000, 700_001],
    // 12,5 % of R$ 1,01: R$ 0,12625 is less than R$ 1,00: paid in full.
    [101, 12.5, undefined, undefined],
    // Half of R$ 0,05 would round up; the parts still add up (not cut: too small).
    [5, 50, undefined, undefined],
    // 33,33 % of R$ 15.000,00 is R$ 4.999,50.
    [1_500_000, 33.33, 499_950, 1_000_050],
    // Half up: 50 % of R$ 2,01 is R$ 1,005: R$ 1,01 and R$ 1,00.
    [201, 50, 101, 100],
  ])('R$ %s centavos at %s %%: %s and %s', (order, percent, deposit, balance) => {
    const parts = depositParts(BRL(order), percentHundredthsOf(percent));
    expect(parts?.map((p) => p.amount.amountMinor)).toEqual(
      deposit === undefined ? undefined : [deposit, balance],
    );
  });

  it('refuses a percent outside 1 to 99, and one of more than two decimals', () => {
    for (const hundredths of [0, 99, 9_901, 10_000, 1_250.5, -100]) {
      expect(() => depositParts(BRL(10_000), hundredths)).toThrow(RangeError);
    }
  });
});

describe('a part paid two ways', () => {
  it("splits into the customer's first amount and the rest, each at least R$ 1,00, or says the range", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: -1_000, max: 100_001_000 }),
        (part, first) => {
          const split = splitTender(BRL(part), first);
          if ('refused' in split) {
            const { least, most } = split.refused;
            return (
              least === MIN_PART_MINOR &&
              most === part - MIN_PART_MINOR &&
              (first < least || first > most)
            );
          }
          const [one, two] = split.parts;
          return (
            one.amount.amountMinor === first &&
            one.amount.amountMinor + two.amount.amountMinor === part &&
            one.amount.amountMinor >= MIN_PART_MINOR &&
            two.amount.amountMinor >= MIN_PART_MINOR &&
            one.part === 'split-1' &&
            two.part === 'split-2'
          );
        },
      ),
    );
  });

  it('refuses a part too small for two, and a first amount that is not centavos', () => {
    expect(splitTender(BRL(199), 100)).toEqual({ refused: { least: 100, most: 99 } });
    expect(splitTender(BRL(10_000), 150.5)).toEqual({ refused: { least: 100, most: 9_900 } });
  });
});

describe("the vendor's fee cut across the parts", () => {
  it('adds up to the fee of the whole, each share within a centavo of its exact one and never above its part', () => {
    fc.assert(
      fc.property(
        // Up to four parts of R$ 10 million each.
        fc.array(fc.integer({ min: 0, max: 1_000_000_000 }), { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (parts, rate) => {
          fc.pre(parts.some((p) => p > 0));
          const whole = parts.reduce((a, b) => a + b, 0);
          const fee = Math.floor(whole * rate);
          const shares = cutAcross(fee, parts);
          return (
            shares.reduce((a, b) => a + b, 0) === fee &&
            shares.every((share, i) => {
              const exact = (fee * (parts[i] ?? 0)) / whole;
              return share >= 0 && share <= (parts[i] ?? 0) && Math.abs(share - exact) < 1;
            })
          );
        },
      ),
    );
  });

  it('R$ 10,00 over three equal parts: R$ 3,34, R$ 3,33 and R$ 3,33, the first the extra centavo', () => {
    expect(cutAcross(1_000, [5_000, 5_000, 5_000])).toEqual([334, 333, 333]);
  });
});

describe('an amount the customer types', () => {
  it.each([
    ['1234,56', 123_456],
    ['1.234,56', 123_456],
    ['R$ 1.234,5', 123_450],
    [' 15000 ', 1_500_000],
    ['0,99', 99],
    ['1.234', 123_400],
  ])('%s is %s centavos', (typed, centavos) => {
    expect(centavosOfReais(typed)).toBe(centavos);
  });

  it.each(['', 'abc', '1234.56', '12,345', '1,2,3', '-10,00', '1.23,45', '12.34'])(
    '%j is no amount',
    (typed) => {
      expect(centavosOfReais(typed)).toBeUndefined();
    },
  );

  it('reads back what the page writes: any amount in reais with its thousands and centavos', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000_000 }), (minor) => {
        const reais = Math.floor(minor / 100)
          .toString()
          .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
        return centavosOfReais(`${reais},${String(minor % 100).padStart(2, '0')}`) === minor;
      }),
    );
  });
});
