import {
  MAX_EXPIRY_MINUTES,
  MAX_INSTALLMENTS,
  MIN_EXPIRY_MINUTES,
  PAYMENT_METHODS,
} from '../../../src/payments/payment-offer';
import { officialOrigins } from '../../../src/payments/provider-hosts';
import { PROVIDER_LIST, PROVIDER_NAMES, PROVIDERS } from '../../../src/payments/providers';

/** Each provider is one descriptor in the list; each must be complete, whichever it is. */
describe.each(PROVIDER_LIST.map((provider) => [provider.name, provider] as const))(
  'the %s descriptor',
  (name, provider) => {
    it('is listed under its own name', () => {
      expect(Object.entries(PROVIDERS).find(([, listed]) => listed === provider)?.[0]).toBe(name);
      expect(PROVIDER_NAMES).toContain(name);
      expect(provider.label.trim()).not.toBe('');
    });

    it('names secrets among its fields, and a variable for each field', () => {
      const fields = Object.keys(provider.fields);
      expect(fields).toEqual(expect.arrayContaining([...provider.secrets]));
      expect(Object.keys(provider.variables).sort()).toEqual([...fields].sort());
      for (const row of provider.rows) {
        expect(row.variable).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/);
        expect(row.secret).toBe(provider.secrets.some((secret) => secret === row.field));
      }
    });

    it('has credentials that match its kind', () => {
      if (provider.credential.kind === 'none') {
        expect(provider.secrets).toEqual([]);
        expect(provider.api).toBeUndefined();
      } else {
        expect(provider.secrets.length).toBeGreaterThan(0);
      }
    });

    it('declares its API hosts as https origins, and fields to choose among them', () => {
      const api = provider.api;
      const fields = Object.keys(provider.fields);
      const urls = api ? [api.production, ...(api.sandbox ? [api.sandbox] : [])] : [];
      for (const url of urls) expect(new URL(url).protocol).toBe('https:');
      for (const origin of api ? officialOrigins(api) : []) {
        const url = new URL(origin);
        expect(url.protocol).toBe('https:');
        expect(url.origin).toBe(origin);
        expect(url.username + url.password).toBe('');
      }
      expect(api?.label ?? provider.label).toBe(provider.label);
      expect(fields.includes('environment')).toBe(api !== undefined);
      expect(fields.includes('apiUrl')).toBe(api !== undefined);
    });

    it('offers what a checkout can be made with, saying why where it offers less', () => {
      const { offer } = provider;
      expect(offer.methods.length).toBeGreaterThan(0);
      expect(PAYMENT_METHODS).toEqual(expect.arrayContaining([...offer.methods]));
      expect(offer.maxInstallments).toBeGreaterThanOrEqual(1);
      expect(offer.maxInstallments).toBeLessThanOrEqual(MAX_INSTALLMENTS);
      expect(offer.maxExpiryMinutes).toBeGreaterThanOrEqual(MIN_EXPIRY_MINUTES);
      expect(offer.maxExpiryMinutes).toBeLessThanOrEqual(MAX_EXPIRY_MINUTES);
      expect(offer.methods.length < PAYMENT_METHODS.length).toBe(offer.why.methods !== undefined);
      expect(offer.maxInstallments < MAX_INSTALLMENTS).toBe(offer.why.installments !== undefined);
      expect(offer.maxExpiryMinutes < MAX_EXPIRY_MINUTES).toBe(offer.why.expiry !== undefined);
    });

    it('checks its part of a document by name, refusing fields it does not have', () => {
      expect(provider.document.safeParse({ name }).success).toBe(
        provider.rows.every((row) => row.schema.safeParse(undefined).success),
      );
      expect(provider.document.safeParse({ name, notAField: 'x' }).success).toBe(false);
    });
  },
);

describe('the list of providers', () => {
  it('gives every variable to one field of one provider', () => {
    const variables = PROVIDER_LIST.flatMap((provider) => provider.rows.map((row) => row.variable));
    expect(new Set(variables).size).toBe(variables.length);
  });

  it('lists each name once', () => {
    expect(new Set(PROVIDER_NAMES).size).toBe(PROVIDER_LIST.length);
    expect(PROVIDER_NAMES).toEqual(Object.keys(PROVIDERS));
  });
});
