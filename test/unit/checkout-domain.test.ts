import { computedAmount } from '../../src/checkout/amount-source';
import {
  isOpen,
  isOutcome,
  NEXT_STATES,
  statesLeadingTo,
  CHECKOUT_STATES,
} from '../../src/checkout/checkout-record';
import { serviceSchema } from '../../src/platform/schemas';

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
