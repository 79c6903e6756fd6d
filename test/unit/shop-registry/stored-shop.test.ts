import {
  DataKey,
  newKeyringEntry,
  parseKeyring,
  type Keyring,
} from '../../../src/secrets/secret-box';
import { documentFields, parseShopDocument } from '../../../src/shop-registry/shop-document';
import { valueAt } from '../../../src/shop-registry/shop-fields';
import { openShop, sealShop, viewOf } from '../../../src/shop-registry/stored-shop';

/*
 * A shop as the registry stores and shows it (src/shop-registry/stored-shop.ts), for a document
 * of every provider: what is sealed, shown and opened follows the field table.
 */
const keyring = parseKeyring(newKeyringEntry('k1')) as Keyring;
const platform = { email: 'loja@example.com', password: 'platform-pw', apiKey: 'platform-key' };
const documents = [
  { name: 'sandbox' },
  { name: 'stripe', secretKey: 'sk_test_abc', webhookSecret: 'whsec_abc', apiUrl: undefined },
  { name: 'mercadopago', accessToken: 'APP_USR-1234', webhookSecret: 'a-webhook-secret-of-16' },
  { name: 'asaas', apiKey: '$aact_abc', webhookToken: 'a'.repeat(32), environment: 'sandbox' },
].map((provider) =>
  parseShopDocument(
    {
      id: 'loja-1',
      name: 'Loja Um',
      platform,
      provider,
      payment: { methods: ['pix'], expiryMinutes: 60 },
    },
    [],
  ),
);
const meta = {
  enabled: true,
  createdAt: '2026-11-26T00:00:00.000Z',
  updatedAt: '2026-11-26T00:00:00.000Z',
  incarnation: 'abc123',
  routeToken: { hash: 'h', rotatedAt: '2026-11-26T00:00:00.000Z' },
};

describe('a stored shop', () => {
  it.each(documents.map((document) => [document.provider.name, document] as const))(
    '%s: seals every secret field, opens to the same document, shows no secret',
    (_name, document) => {
      const stored = sealShop(document, { keyring, dataKey: DataKey.generate() }, meta);
      const fields = documentFields(document.provider.name);
      const text = JSON.stringify(stored);
      for (const field of fields) {
        const value = valueAt(document, field.path);
        if (value === undefined) continue;
        // A secret is stored sealed; every other field as it is.
        if (field.secret) expect(text).not.toContain(String(value));
        else expect(valueAt(stored, field.path)).toEqual(value);
      }
      expect(openShop(JSON.parse(text) as typeof stored, keyring).document).toEqual(document);
      const view = viewOf(stored);
      for (const field of fields) {
        if (field.secret) expect(valueAt(view, field.path)).toBeUndefined();
        else expect(valueAt(view, field.path)).toEqual(valueAt(document, field.path));
      }
      expect(view).toMatchObject({
        id: 'loja-1',
        enabled: true,
        token_rotated_at: meta.routeToken.rotatedAt,
      });
      expect(JSON.stringify(view)).not.toMatch(/dataKey|hash|platform-pw|platform-key/);
    },
  );
});
