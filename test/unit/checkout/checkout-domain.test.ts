import { computedAmount } from '../../../src/checkout/amount-source';
import { amountVerdict } from '../../../src/checkout/settle-checkout';
import {
  isOpen,
  isOutcome,
  NEXT_STATES,
  statesLeadingTo,
  CHECKOUT_STATES,
} from '../../../src/checkout/checkout-record';
import { serviceSchema } from '../../../src/platform/schemas';

describe('the checkout state machine', () => {
  it('keeps outcomes sticky: an outcome only moves on to reported', () => {
    for (const outcome of ['paid', 'declined', 'expired', 'failed'] as const) {
      expect(NEXT_STATES[outcome]).toEqual(['reported']);
      expect(isOutcome(outcome)).toBe(true);
    }
    expect(NEXT_STATES.reported).toEqual([]);
  });

  it('lets only open states reach an outcome', () => {
    expect(statesLeadingTo('paid')).toEqual(['requested', 'url_sent', 'processing']);
    expect(statesLeadingTo('url_sent')).toEqual(['requested']);
    expect(CHECKOUT_STATES.filter(isOpen)).toEqual(['requested', 'url_sent', 'processing']);
  });
});

describe('computedAmount', () => {
  it('sums labour and price x quantity of materials, in centavos', () => {
    const service = serviceSchema.parse({
      id: 1,
      labour: {
        cutting: { price: 18.5 },
        edging: { price: '32.30' },
        machining: { price: 0 },
        packing: { price: 25 },
        delivery: null,
      },
      materials: {
        boards: [{ description: 'MDF Branco 15mm', price: 289.9, quantity: 2 }],
        edges: [{ description: 'Fita PVC', price: 1.35, quantity: 17.5, unit: 'm' }],
        components: [{ internal_code: 'DOB-35', price: 12.9, quantity: 4 }],
      },
    });
    const charge = computedAmount(service, 'BRL') as Awaited<ReturnType<typeof computedAmount>>;
    expect(charge.lines).toEqual([
      { label: 'MDF Branco 15mm × 2', amountMinor: 57_980 },
      { label: 'Fita PVC × 17.5 m', amountMinor: 2_363 },
      { label: 'DOB-35 × 4', amountMinor: 5_160 },
      { label: 'Corte', amountMinor: 1_850 },
      { label: 'Aplicação de fita de borda', amountMinor: 3_230 },
      { label: 'Embalagem', amountMinor: 2_500 },
    ]);
    expect(charge.amount).toEqual({ amountMinor: 73_083, currency: 'BRL' });
  });

  it('charges nothing for a service without prices', () => {
    const charge = computedAmount(serviceSchema.parse({ id: 2 }), 'BRL') as Awaited<
      ReturnType<typeof computedAmount>
    >;
    expect(charge).toEqual({ amount: { amountMinor: 0, currency: 'BRL' }, lines: [] });
  });
});

describe('the amount rule', () => {
  const order = { amountMinor: 120_000, currency: 'BRL' };
  const brl = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });

  it('pays the order exactly, or with the excess the provider calls interest, recording both', () => {
    expect(amountVerdict(order, { amount: brl(120_000) })).toEqual({
      paid: true,
      collectedMinor: 120_000,
    });
    expect(amountVerdict(order, { amount: brl(127_200), interest: brl(7_200) })).toEqual({
      paid: true,
      collectedMinor: 127_200,
      interestMinor: 7_200,
    });
    // Nothing to compare: the provider said no amount (the sandbox says its own).
    expect(amountVerdict(order, {})).toEqual({ paid: true });
  });

  it('never pays short, an excess nobody calls interest, or another currency', () => {
    expect(amountVerdict(order, { amount: brl(119_999) })).toEqual({
      paid: false,
      why: 'short of the order',
    });
    // Interest on top of a short principal is still short.
    expect(amountVerdict(order, { amount: brl(120_000), interest: brl(5_000) })).toMatchObject({
      paid: false,
      why: 'short of the order',
    });
    expect(amountVerdict(order, { amount: brl(127_200) })).toMatchObject({ paid: false });
    expect(amountVerdict(order, { amount: brl(127_200), interest: brl(7_000) })).toMatchObject({
      paid: false,
    });
    expect(
      amountVerdict(order, { amount: { amountMinor: 120_000, currency: 'USD' } }),
    ).toMatchObject({ paid: false, why: 'collected in USD, not BRL' });
  });
});
