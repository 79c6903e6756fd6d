import {
  signatureManifest,
  signatureTimeMs,
  verifyNotification,
  signNotification,
} from '../../../src/payments/mercadopago/mercadopago-signature';

describe("Mercado Pago's x-signature", () => {
  const secret = 'a-secret-of-the-application';
  const now = 1_704_908_010_000;

  it('signs the manifest with data.id in lower case', () => {
    expect(signatureManifest('ABC123', 'req-1', '1704908010')).toBe(
      'id:abc123;request-id:req-1;ts:1704908010;',
    );
    const header = signNotification(secret, {
      dataId: 'ABC123',
      requestId: 'req-1',
      ts: '1704908010',
    });
    expect(verifyNotification(secret, header, { dataId: 'abc123', requestId: 'req-1' }, now)).toBe(
      true,
    );
  });

  it('reads ts in seconds or in milliseconds', () => {
    expect(signatureTimeMs('1704908010')).toBe(now);
    expect(signatureTimeMs('1704908010000')).toBe(now);
    for (const ts of ['1704908010', '1704908010000']) {
      const header = signNotification(secret, { dataId: '123', requestId: 'r', ts });
      expect(verifyNotification(secret, header, { dataId: '123', requestId: 'r' }, now)).toBe(true);
    }
  });

  it('refuses malformed headers without throwing', () => {
    for (const header of [undefined, '', 'ts=abc,v1=00', 'v1=zz', 'ts=1704908010']) {
      expect(verifyNotification(secret, header, { dataId: '1', requestId: 'r' }, now)).toBe(false);
    }
  });
});
