import type { CheckoutRecord, PaymentIncident } from '../../../src/checkout/checkout-record';
import { incidentOf } from '../../../src/checkout/payment-incidents';
import type { MedReturn, PaymentStatus } from '../../../src/payments/payment-provider';

/*
 * Which incident a provider's word after the outcome is (docs/payment-providers.md, "Incidents
 * after the outcome"): a MED return is `med_return`, never a `refund`, told once per Pix.
 */
const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });
const E2E = 'E1234567820261207120000abcdefghi';

const paid: CheckoutRecord = {
  checkoutId: 'chk_acme_0123456789abcdef01234567',
  shop: 'acme',
  serviceId: 1004,
  state: 'reported',
  outcome: 'paid',
  provider: 'pix',
  amount: BRL(10_000),
  transactionId: E2E,
  createdAt: '2026-12-07T11:00:00.000Z',
  updatedAt: '2026-12-07T11:05:00.000Z',
  expiresAt: '2026-12-08T11:00:00.000Z',
};

const med = (status: string, amountMinor = 10_000): MedReturn => ({
  natureza: 'MED_FRAUDE',
  id: 'MED1',
  amount: BRL(amountMinor),
  status,
});
const pix = (state: PaymentStatus['state'], medReturn?: MedReturn): PaymentStatus => ({
  state,
  transactionId: E2E,
  amount: BRL(10_000),
  method: 'pix',
  ...(medReturn ? { medReturn } : {}),
});
const known = (incident: Omit<PaymentIncident, 'at'>): CheckoutRecord => ({
  ...paid,
  incidents: [{ ...incident, at: '2026-12-07T12:00:00.000Z' }],
});

describe('incidentOf', () => {
  it.each([
    ['a full MED return (the Pix reads refunded)', pix('refunded', med('DEVOLVIDO'))],
    ['a partial one (the Pix reads paid)', pix('paid', med('DEVOLVIDO', 4_000))],
    ['one under way (the money blocked)', pix('paid', med('EM_PROCESSAMENTO'))],
  ])('%s of a paid checkout is a med_return with its natureza', (_, status) => {
    expect(incidentOf(paid, status)).toEqual({
      kind: 'med_return',
      transactionId: E2E,
      natureza: 'MED_FRAUDE',
      note: expect.stringMatching(/^MED_FRAUDE: BRL \d+\.\d{2} .* \(devolução MED1\)$/),
    });
  });

  it('an ordinary return in full is a refund, as before', () => {
    expect(incidentOf(paid, pix('refunded'))).toMatchObject({ kind: 'refund' });
  });

  it('once the MED return is known, nothing more of that Pix (never a refund on top)', () => {
    const told = incidentOf(paid, pix('paid', med('EM_PROCESSAMENTO')));
    expect(told).toBeDefined();
    expect(incidentOf(known(told!), pix('refunded', med('DEVOLVIDO')))).toBeUndefined();
  });

  it('a MED return of a late payment already told is a med_return; of one not told, the late payment first', () => {
    const expired: CheckoutRecord = { ...paid, outcome: 'expired' };
    expect(incidentOf(expired, pix('paid', med('EM_PROCESSAMENTO')))).toMatchObject({
      kind: 'late_payment',
    });
    const late = {
      ...expired,
      incidents: known({ kind: 'late_payment', transactionId: E2E }).incidents,
    };
    expect(incidentOf(late, pix('refunded', med('DEVOLVIDO')))).toMatchObject({
      kind: 'med_return',
      natureza: 'MED_FRAUDE',
    });
  });
});
