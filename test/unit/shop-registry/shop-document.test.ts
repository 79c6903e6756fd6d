import { AppError } from '../../../src/errors';
import { fieldsSet } from '../../../src/shop-registry/shop-fields';
import {
  changedFields,
  documentFields,
  documentSecrets,
  parseShopDocument,
  shopDocumentFromEnv,
  unservedBecause,
} from '../../../src/shop-registry/shop-document';
import { applyShopPatch, parseShopPatch } from '../../../src/shop-registry/shop-patch';
import { ConfigError } from '../../../src/config';
import { forTerminal, printable } from '../../../src/cli/terminal-text';

/** A shop's document: printable names, provider hosts (CONTRACT "The trust boundary of a shop"). */
const document = {
  id: 'loja-1',
  name: 'Loja Um',
  platform: { email: 'loja@example.com', password: 'pw', apiKey: 'key' },
  provider: {
    name: 'mercadopago',
    accessToken: 'APP_USR-1234-abcd',
    webhookSecret: 'a-webhook-secret-of-16',
  },
};

/** The fields a refusal names, with their problems. */
function refusal(run: () => unknown): Array<{ field: string; problem: string }> {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError && error.code === 'VALIDATION_FAILED') return error.details;
    throw error;
  }
  throw new Error('accepted');
}

/** What a terminal would act upon: C0, DEL, C1, bidi controls and zero-width characters. */
// eslint-disable-next-line no-control-regex -- the very characters this test looks for
const RAW = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u202a-\u202e\u2066-\u2069]/;

const HOSTILE_NAMES = [
  'Loja\u001b[2J\u001b[Hapagada', // C0: ESC, a terminal's escape sequence
  'Loja\u0000nula',
  'Loja\u007f', // DEL
  'Loja\u009b31mvermelha', // C1: CSI
  'Loja \u202eetnet\u202c', // a bidi override
  'Lo\u200bja', // zero-width space
  'Loja\u2066isolada\u2069',
  'Loja\u2028nova linha',
];

describe('a shop name', () => {
  it.each(HOSTILE_NAMES)('refuses %j, naming the field', (name) => {
    expect(refusal(() => parseShopDocument({ ...document, name }, []))).toEqual([
      { field: 'name', problem: expect.stringContaining('must be printable') },
    ]);
    expect(refusal(() => parseShopPatch({ name }))).toEqual([
      { field: 'name', problem: expect.stringContaining('must be printable') },
    ]);
  });

  it('takes 1 to 100 printable characters, accents and emoji included', () => {
    for (const name of ['A', 'Padaria São João — Centro', '🍞'.repeat(100), 'x'.repeat(100)])
      expect(parseShopDocument({ ...document, name }, []).name).toBe(name);
    for (const name of ['', '   ', 'x'.repeat(101), '🍞'.repeat(101)])
      expect(refusal(() => parseShopDocument({ ...document, name }, []))[0]?.field).toBe('name');
  });
});

describe("a shop's site", () => {
  it('takes an http(s) URL, and refuses anything a link could run or leave', () => {
    for (const siteUrl of ['https://loja.example/pedidos?x=1', 'http://127.0.0.1:8080/'])
      expect(parseShopDocument({ ...document, siteUrl }, []).siteUrl).toBe(siteUrl);
    for (const siteUrl of [
      'javascript:alert(1)',
      'data:text/html,<b>x</b>',
      'ftp://loja.example',
      '//loja.example',
      'loja.example',
      `https://loja.example/${'x'.repeat(2000)}`,
    ]) {
      expect(refusal(() => parseShopDocument({ ...document, siteUrl }, []))[0]?.field).toBe(
        'siteUrl',
      );
      expect(refusal(() => parseShopPatch({ siteUrl }))[0]?.field).toBe('siteUrl');
    }
  });

  it('is removed by a change that gives it null', () => {
    const current = parseShopDocument({ ...document, siteUrl: 'https://loja.example' }, []);
    const next = applyShopPatch(current, parseShopPatch({ siteUrl: null }), []);
    expect(next).not.toHaveProperty('siteUrl');
    expect(changedFields(current, next)).toEqual(['siteUrl']);
  });
});

describe("a shop's provider host", () => {
  const at = (apiUrl: string) => ({ ...document, provider: { ...document.provider, apiUrl } });

  it('takes the official host, or an origin PROVIDER_API_ORIGINS lists; refuses the rest', () => {
    expect(parseShopDocument(at('https://api.mercadopago.com'), []).provider).toMatchObject({
      apiUrl: 'https://api.mercadopago.com',
    });
    expect(parseShopDocument(at('http://127.0.0.1:4010/'), ['http://127.0.0.1:4010'])).toBeTruthy();
    expect(refusal(() => parseShopDocument(at('http://127.0.0.1:4010/'), []))).toEqual([
      { field: 'provider.apiUrl', problem: expect.stringContaining('PROVIDER_API_ORIGINS') },
    ]);
  });

  it('chooses production or sandbox; a provider without a sandbox host says so', () => {
    const sandbox = { ...document.provider, environment: 'sandbox' };
    expect(refusal(() => parseShopDocument({ ...document, provider: sandbox }, []))).toEqual([
      { field: 'provider.environment', problem: expect.stringContaining('one API host') },
    ]);
    const asaas = {
      name: 'asaas',
      apiKey: '$aact_hmlg_000abc',
      webhookToken: 'a'.repeat(40),
      environment: 'sandbox',
    };
    expect(parseShopDocument({ ...document, provider: asaas }, []).provider).toMatchObject({
      environment: 'sandbox',
    });
  });

  it('moves a shop back to the official host when a change removes its apiUrl (null)', () => {
    const listed = ['http://127.0.0.1:4010'];
    const current = parseShopDocument(at('http://127.0.0.1:4010'), listed);
    const patch = parseShopPatch({ provider: { apiUrl: null } });
    expect(applyShopPatch(current, patch, []).provider).not.toHaveProperty('apiUrl');
    expect(
      refusal(() => applyShopPatch(current, parseShopPatch({ name: 'Outro nome' }), [])),
    ).toEqual([{ field: 'provider.apiUrl', problem: expect.any(String) }]);
  });

  it('says why a stored shop whose host is no longer allowed is not served', () => {
    expect(unservedBecause({ name: 'stripe', apiUrl: 'https://api.stripe.com' }, [])).toBe(
      undefined,
    );
    expect(unservedBecause({ name: 'stripe' }, [])).toBeUndefined();
    expect(unservedBecause({ name: 'stripe', apiUrl: 'http://10.0.0.5:8080/x' }, [])).toMatch(
      /^provider\.apiUrl \(http:\/\/10\.0\.0\.5:8080\) is not Stripe's API .*PROVIDER_API_ORIGINS/,
    );
  });
});

describe('stored text printed by the CLI', () => {
  it.each(HOSTILE_NAMES)('escapes %j, and its JSON reads back the same', (name) => {
    const line = printable(name);
    const json = forTerminal(JSON.stringify({ name }, null, 2));
    // Raw, none of them; the JSON keeps only its own layout's line feeds.
    expect(line).not.toMatch(RAW);
    expect(json.replace(/\n/g, '')).not.toMatch(RAW);
    expect(line).toContain('\\u');
    expect(JSON.parse(json)).toEqual({ name });
  });

  it('leaves printable text as it is', () => {
    expect(printable('Padaria São João — Centro 🍞')).toBe('Padaria São João — Centro 🍞');
  });
});

describe("a shop's fields, declared once", () => {
  const parsed = () =>
    parseShopDocument({ ...document, payment: { methods: ['pix'], expiryMinutes: 90 } }, []);

  it('are the platform account, the provider descriptor and the payment choice, secrets flagged', () => {
    const fields = documentFields('mercadopago');
    const secret = fields.filter((field) => field.secret).map((field) => field.path);
    expect(secret).toEqual([
      'platform.password',
      'platform.apiKey',
      'provider.accessToken',
      'provider.webhookSecret',
      // A connected account's (its OAuth tokens: the access token above, and this one).
      'provider.refreshToken',
    ]);
    expect(fields.map((field) => field.path)).toEqual(
      expect.arrayContaining(['name', 'platform.email', 'provider.apiUrl', 'payment.methods']),
    );
    // Another provider, other fields: the descriptor's.
    expect(
      documentFields('stripe')
        .filter((f) => f.secret)
        .map((f) => f.path),
    ).toEqual([
      'platform.password',
      'platform.apiKey',
      'provider.secretKey',
      'provider.webhookSecret',
    ]);
  });

  it("name every field a document sets, and only those, for an add's audit", () => {
    expect(fieldsSet(parsed(), documentFields('mercadopago'))).toEqual([
      'name',
      'platform.email',
      'platform.password',
      'platform.apiKey',
      'provider.name',
      'provider.accessToken',
      'provider.webhookSecret',
      'payment.methods',
      'payment.expiryMinutes',
    ]);
  });

  it('give the secrets the logger scrubs: every secret value, and the Basic credentials', () => {
    expect(documentSecrets(parsed())).toEqual([
      'pw',
      'key',
      'APP_USR-1234-abcd',
      'a-webhook-secret-of-16',
      Buffer.from('loja@example.com:pw').toString('base64'),
    ]);
  });

  it('say which changed, across a change of provider, never a value', () => {
    const before = parsed();
    const after = applyShopPatch(
      before,
      parseShopPatch({
        name: 'Loja 1',
        provider: { name: 'stripe', secretKey: 'sk_test_1', webhookSecret: 'whsec_1' },
      }),
      [],
    );
    expect(changedFields(before, after)).toEqual([
      'name',
      'provider.name',
      'provider.accessToken',
      'provider.webhookSecret',
      'provider.secretKey',
    ]);
  });
});

describe("the env shop's document", () => {
  const env = {
    platform: { email: 'loja@example.com', password: 'pw', apiKey: 'key' },
    providerDocument: { name: 'sandbox' as const },
    payment: { methods: ['pix' as const] },
  };

  it("is the shop `default`'s, checked by the same schema as a registry shop's", () => {
    expect(shopDocumentFromEnv(env)).toEqual({
      id: 'default',
      name: 'default',
      platform: env.platform,
      provider: { name: 'sandbox' },
      payment: { methods: ['pix'] },
    });
    expect(shopDocumentFromEnv({ ...env, payment: {} })).not.toHaveProperty('payment');
  });

  it('takes its name and site from SHOP_NAME and SHOP_SITE_URL, naming them when refused', () => {
    expect(
      shopDocumentFromEnv({ ...env, name: 'Móveis Aurora', siteUrl: 'https://aurora.example' }),
    ).toMatchObject({ id: 'default', name: 'Móveis Aurora', siteUrl: 'https://aurora.example' });
    expect(() => shopDocumentFromEnv({ ...env, name: 'Loja\u001b[2J' })).toThrow(/SHOP_NAME: /);
    expect(() => shopDocumentFromEnv({ ...env, siteUrl: 'javascript:alert(1)' })).toThrow(
      /SHOP_SITE_URL: /,
    );
  });

  it('names the variable behind a field the document refuses', () => {
    const long = { ...env, platform: { ...env.platform, email: `${'a'.repeat(320)}@x.com` } };
    expect(() => shopDocumentFromEnv(long)).toThrow(ConfigError);
    expect(() => shopDocumentFromEnv(long)).toThrow(/PLATFORM_EMAIL: /);
  });

  it('knows the variable of each field the environment sets', () => {
    const variables = documentFields('stripe').map((field) => [field.path, field.env]);
    expect(variables).toEqual(
      expect.arrayContaining([
        ['platform.email', 'PLATFORM_EMAIL'],
        ['platform.apiKey', 'PLATFORM_API_KEY'],
        ['provider.name', 'PAYMENT_PROVIDER'],
        ['provider.secretKey', 'STRIPE_SECRET_KEY'],
        ['payment.maxInstallments', 'CARD_MAX_INSTALLMENTS'],
      ]),
    );
  });
});

describe('a change to a shop, as the document shape says', () => {
  const current = parseShopDocument(
    { ...document, payment: { methods: ['pix', 'card'], expiryMinutes: 60 } },
    [],
  );

  it('gives a field whole, merges a part field by field, and removes what null names', () => {
    const renamed = applyShopPatch(current, parseShopPatch({ name: 'Loja Dois' }), []);
    expect(renamed).toEqual({ ...current, name: 'Loja Dois' });
    const merged = applyShopPatch(current, parseShopPatch({ payment: { expiryMinutes: 90 } }), []);
    expect(merged.payment).toEqual({ methods: ['pix', 'card'], expiryMinutes: 90 });
    const fieldGone = applyShopPatch(
      current,
      parseShopPatch({ payment: { expiryMinutes: null } }),
      [],
    );
    expect(fieldGone.payment).toEqual({ methods: ['pix', 'card'] });
    const partGone = applyShopPatch(current, parseShopPatch({ payment: null }), []);
    expect(partGone).not.toHaveProperty('payment');
    expect(partGone.platform).toEqual(current.platform);
  });

  it("replaces the provider's part whole when it names another provider", () => {
    const stripe = { name: 'stripe', secretKey: 'sk_test_abc', webhookSecret: 'whsec_abc' };
    const moved = applyShopPatch(current, parseShopPatch({ provider: stripe, payment: null }), []);
    expect(moved.provider).toEqual(stripe);
    const sameName = applyShopPatch(
      current,
      parseShopPatch({ provider: { name: 'mercadopago', webhookSecret: 'another-secret-of-16' } }),
      [],
    );
    expect(sameName.provider).toEqual({
      ...current.provider,
      webhookSecret: 'another-secret-of-16',
    });
  });

  it('refuses a change of nothing, an unknown key, and an unknown field of a part, naming them', () => {
    expect(refusal(() => parseShopPatch({}))).toEqual([
      {
        field: '(document)',
        problem:
          'changes nothing: give name, siteUrl, platform, provider, payment, plan or vendorFee',
      },
    ]);
    expect(refusal(() => parseShopPatch({ id: 'loja-2' }))).toEqual([
      { field: 'id', problem: 'is not a field of a shop document' },
    ]);
    expect(refusal(() => parseShopPatch({ platform: 'x' }))).toEqual([
      { field: 'platform', problem: expect.stringMatching(/object/) },
    ]);
    expect(
      refusal(() => applyShopPatch(current, parseShopPatch({ platform: { extra: 'x' } }), [])),
    ).toEqual([{ field: 'platform.extra', problem: 'is not a field of a shop document' }]);
    expect(
      refusal(() => applyShopPatch(current, parseShopPatch({ platform: { email: null } }), [])),
    ).toEqual([{ field: 'platform.email', problem: expect.any(String) }]);
  });
});
