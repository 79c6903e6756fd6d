import { deliveredFingerprint, withConnectorPayment } from '../../../src/sync/fingerprint';

describe("a service as the ERP gets it, with a planned order's payment", () => {
  const payment = { state: 'balance_due', paid: 30_000 };

  it('leaves a service without a plan, and its fingerprint, as they were', () => {
    const sent = { id: 1004, status: { code: 6 } };
    expect(withConnectorPayment(sent, undefined)).toBe(sent);
    expect(deliveredFingerprint('0123456789abcdef', undefined)).toBe('0123456789abcdef');
  });

  it('adds the payment, and a version of it to the fingerprint: a balance paid is new', () => {
    expect(withConnectorPayment({ id: 1004 }, payment)).toEqual({
      id: 1004,
      connector_payment: payment,
    });
    const due = deliveredFingerprint('0123456789abcdef', payment);
    const paid = deliveredFingerprint('0123456789abcdef', { ...payment, state: 'paid' });
    expect(due).toMatch(/^0123456789abcdef-[0-9a-f]{8}$/);
    expect(paid).not.toBe(due);
    expect(deliveredFingerprint('0123456789abcdef', { ...payment })).toBe(due);
  });

  it('adds nothing to what is not an object', () => {
    expect(withConnectorPayment(null, payment)).toBeNull();
    expect(withConnectorPayment([1], payment)).toEqual([1]);
  });
});
