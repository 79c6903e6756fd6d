import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CONFIG_VARIABLES,
  envShopSummary,
  loadConfig,
  platformCommandConfig,
  readConfig,
  SECRET_VARIABLES,
} from '../../../src/config';
import { envShopSettings } from '../../../src/main/shop-deps';
import { configProblems } from '../../support/config-problems';

const emptyDir = mkdtempSync(path.join(tmpdir(), 'connector-config-'));
const valid = {
  PLATFORM_BASE_URL: 'https://apis.example.com/',
  PLATFORM_EMAIL: 'erp@example.com',
  PLATFORM_PASSWORD: 'pw-123456',
  PLATFORM_API_KEY: 'key-abcdef',
  CHECKOUT_ROUTE_TOKEN: 'a-token-of-16-chars-or-more',
};

const problems = (env: Record<string, string>): string[] => configProblems(env, emptyDir);

describe('loadConfig', () => {
  it('applies the defaults of config/defaults.env', () => {
    const config = loadConfig(valid, emptyDir);
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      role: 'all',
      redis: { url: 'redis://127.0.0.1:6379', prefix: 'connector' },
      platform: { baseUrl: 'https://apis.example.com', timeoutMs: 10000, pageSize: 50 },
      checkout: { currency: 'BRL' },
      envShop: { routePath: '/checkout', providerDocument: { name: 'sandbox' } },
      shops: { secretKeys: undefined, adminToken: undefined, refreshMs: 2000 },
      dashboard: undefined,
      shutdownTimeoutMs: 15000,
    });
  });

  it('is frozen', () => {
    const config = loadConfig(valid, emptyDir);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.platform)).toBe(true);
  });

  it('names every missing required variable, one line each', () => {
    // Without PLATFORM_EMAIL there is no env shop: the registry's shops only.
    expect(problems({})).toEqual(['PLATFORM_BASE_URL: is required']);
    expect(
      problems({ PLATFORM_BASE_URL: 'https://apis.example.com', PLATFORM_EMAIL: 'a@b.c' }),
    ).toEqual([
      'PLATFORM_PASSWORD: is required with PLATFORM_EMAIL (the env shop)',
      'PLATFORM_API_KEY: is required with PLATFORM_EMAIL (the env shop)',
      'CHECKOUT_ROUTE_TOKEN: is required with PLATFORM_EMAIL (the env shop)',
    ]);
  });

  it('serves no env shop without PLATFORM_EMAIL, and refuses half of one', () => {
    const {
      PLATFORM_EMAIL: _email,
      PLATFORM_PASSWORD: _p,
      PLATFORM_API_KEY: _k,
      CHECKOUT_ROUTE_TOKEN: _t,
      ...host
    } = valid;
    expect(loadConfig(host, emptyDir).envShop).toBeUndefined();
    expect(problems({ ...host, PLATFORM_PASSWORD: 'pw' })).toEqual([
      'PLATFORM_EMAIL: is required with PLATFORM_PASSWORD: it defines the env shop (unset them all to serve registry shops only)',
    ]);
  });

  it('checks SHOP_SECRET_KEYS and ADMIN_TOKEN without echoing them', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const lines = problems({
      ...valid,
      SHOP_SECRET_KEYS: `k1:${key},k1:${key},bad,k3:c2hvcnQ=`,
      ADMIN_TOKEN: 'too-short-admin-token',
    });
    expect(lines).toEqual([
      'SHOP_SECRET_KEYS: key id k1 appears twice',
      'SHOP_SECRET_KEYS: key 3 must be keyid:<base64>, the id of letters, digits, _ or -',
      'SHOP_SECRET_KEYS: key k3 must be 32 random bytes in base64 (openssl rand -base64 32)',
      'ADMIN_TOKEN: must be at least 32 characters',
    ]);
    expect(lines.join('\n')).not.toContain(key);
    expect(lines.join('\n')).not.toContain('too-short-admin-token');
    const config = loadConfig({ ...valid, SHOP_SECRET_KEYS: `k1:${key}` }, emptyDir);
    expect(config.shops.secretKeys).toBe(`k1:${key}`);
    expect(config.secrets).toEqual(expect.arrayContaining([key]));
  });

  it('says what is wrong with invalid values without echoing secrets', () => {
    const lines = problems({
      ...valid,
      PORT: 'eighty',
      REDIS_URL: 'http://x',
      CHECKOUT_ROUTE_TOKEN: 'short',
      PAYMENT_PROVIDER: 'paypal',
      CURRENCY: 'real',
    });
    expect(lines.map((line) => line.split(':')[0]).sort()).toEqual([
      'CHECKOUT_ROUTE_TOKEN',
      'CURRENCY',
      'PAYMENT_PROVIDER',
      'PORT',
      'REDIS_URL',
    ]);
    expect(lines.join('\n')).not.toContain('short');
    expect(lines.find((l) => l.startsWith('CHECKOUT_ROUTE_TOKEN'))).toContain(
      'at least 16 characters',
    );
  });

  it('refuses a payment provider it does not have', () => {
    expect(problems({ ...valid, PAYMENT_PROVIDER: 'paypal' })).toEqual([
      'PAYMENT_PROVIDER: must be sandbox, stripe, mercadopago, asaas or pix',
    ]);
    expect(problems({ ...valid, PAYMENT_PROVIDER: 'mercadopago' })).toEqual([
      'MERCADOPAGO_ACCESS_TOKEN: is required with PAYMENT_PROVIDER=mercadopago',
      'MERCADOPAGO_WEBHOOK_SECRET: is required with PAYMENT_PROVIDER=mercadopago',
    ]);
    expect(
      problems({
        ...valid,
        PAYMENT_PROVIDER: 'mercadopago',
        MERCADOPAGO_ACCESS_TOKEN: 'not-a-token',
        MERCADOPAGO_WEBHOOK_SECRET: 'short',
      }),
    ).toEqual([
      'MERCADOPAGO_ACCESS_TOKEN: must be an access token (APP_USR-... or TEST-...)',
      'MERCADOPAGO_WEBHOOK_SECRET: must be at least 16 characters',
    ]);
  });

  it('requires an https PUBLIC_URL in production, a loopback address excepted', () => {
    const production = { ...valid, NODE_ENV: 'production', SANDBOX_IN_PRODUCTION: 'true' };
    expect(problems({ ...production, PUBLIC_URL: 'http://connector.example.com' })).toEqual([
      'PUBLIC_URL: must be https in production (customers and providers reach it over the internet); only a loopback address may be http',
    ]);
    expect(problems({ ...production, PUBLIC_URL: 'https://connector.example.com' })).toEqual([]);
    for (const loopback of [
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
    ]) {
      expect(problems({ ...production, PUBLIC_URL: loopback })).toEqual([]);
    }
    expect(problems({ ...valid, PUBLIC_URL: 'http://connector.example.com' })).toEqual([]);
  });

  it('names each missing or malformed variable of the provider it is given', () => {
    expect(problems({ ...valid, PAYMENT_PROVIDER: 'stripe' })).toEqual([
      'STRIPE_SECRET_KEY: is required with PAYMENT_PROVIDER=stripe',
      'STRIPE_WEBHOOK_SECRET: is required with PAYMENT_PROVIDER=stripe',
    ]);
    expect(
      problems({
        ...valid,
        PAYMENT_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'pk_test_public',
        STRIPE_WEBHOOK_SECRET: 'secret',
        STRIPE_PAYMENT_METHODS: 'card, pix',
      }),
    ).toEqual([
      'STRIPE_SECRET_KEY: must be a Stripe secret or restricted key (sk_... or rk_...)',
      "STRIPE_WEBHOOK_SECRET: must be the endpoint's signing secret (whsec_...)",
      'STRIPE_PAYMENT_METHODS: must be a comma-separated list such as card,pix,boleto',
    ]);
    const config = loadConfig(
      {
        ...valid,
        PAYMENT_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_abc',
        STRIPE_WEBHOOK_SECRET: 'whsec_def',
        STRIPE_PAYMENT_METHODS: 'card,pix',
      },
      emptyDir,
    );
    expect(envShopSettings(config)?.provider.stripe).toEqual({
      secretKey: 'sk_test_abc',
      webhookSecret: 'whsec_def',
      // No STRIPE_API_URL: Stripe's one official host.
      apiUrl: 'https://api.stripe.com',
      paymentMethods: ['card', 'pix'],
    });
    expect(config.secrets).toEqual(expect.arrayContaining(['sk_test_abc', 'whsec_def']));
  });

  it('takes Asaas by its three variables, its key and token checked', () => {
    expect(problems({ ...valid, PAYMENT_PROVIDER: 'asaas' })).toEqual([
      'ASAAS_API_KEY: is required with PAYMENT_PROVIDER=asaas',
      'ASAAS_WEBHOOK_TOKEN: is required with PAYMENT_PROVIDER=asaas',
    ]);
    expect(
      problems({
        ...valid,
        PAYMENT_PROVIDER: 'asaas',
        ASAAS_API_KEY: 'sk_test_abc',
        ASAAS_WEBHOOK_TOKEN: 'too short',
        ASAAS_API_URL: 'ftp://api-sandbox.asaas.com/v3',
      }),
    ).toEqual([
      'ASAAS_API_KEY: must be an Asaas API key ($aact_...)',
      'ASAAS_WEBHOOK_TOKEN: must be 32 to 255 characters without spaces, as Asaas requires',
      'ASAAS_API_URL: must be an http(s) URL',
    ]);
    const token = 'a'.repeat(40);
    const config = loadConfig(
      {
        ...valid,
        PAYMENT_PROVIDER: 'asaas',
        ASAAS_API_KEY: '$aact_hmlg_000MzkwODA2MWY2OGM3MWRlMDU2NWM3MzJlNzZmNGZhZGY6OjA',
        ASAAS_WEBHOOK_TOKEN: token,
        ASAAS_API_URL: 'https://api-sandbox.asaas.com/v3',
      },
      emptyDir,
    );
    expect(envShopSettings(config)?.provider).toEqual({
      name: 'asaas',
      sandboxInProduction: false,
      asaas: {
        apiKey: '$aact_hmlg_000MzkwODA2MWY2OGM3MWRlMDU2NWM3MzJlNzZmNGZhZGY6OjA',
        webhookToken: token,
        apiUrl: 'https://api-sandbox.asaas.com/v3',
      },
      payment: { methods: ['pix', 'card'], maxInstallments: 1 },
      // The deployment's vendor accounts: none set, no fee, tokens renewed 30 days ahead.
      vendor: {
        accounts: {},
        fee: { percentHundredths: 0, fixedMinor: 0 },
        renewBeforeMs: 30 * 86_400_000,
      },
    });
    // Kept in the Kubernetes Secret, never the ConfigMap (.ci/manifests-check.mjs).
    expect(SECRET_VARIABLES).toEqual(
      expect.arrayContaining(['ASAAS_API_KEY', 'ASAAS_WEBHOOK_TOKEN', 'STRIPE_SECRET_KEY']),
    );
    expect(SECRET_VARIABLES).not.toContain('ASAAS_API_URL');
    expect(config.secrets).toEqual(
      expect.arrayContaining([
        token,
        '$aact_hmlg_000MzkwODA2MWY2OGM3MWRlMDU2NWM3MzJlNzZmNGZhZGY6OjA',
      ]),
    );
  });

  it("reads the env shop's payment choice, and refuses what its provider cannot honour (78)", () => {
    const stripe = {
      ...valid,
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_def',
    };
    expect(
      problems({ ...stripe, CARD_MAX_INSTALLMENTS: '3', CHECKOUT_EXPIRY_MINUTES: '4320' }),
    ).toEqual([
      'CARD_MAX_INSTALLMENTS: stripe allows at most 1: Stripe cannot split a card payment in BRL (its installments exist only for cards of Mexico and Japan)',
      'CHECKOUT_EXPIRY_MINUTES: stripe allows at most 1440 minutes: a Stripe Checkout Session stays open at most 24 hours (a boleto issued in it is then paid within its own days, the checkout processing meanwhile)',
    ]);
    expect(
      problems({ ...valid, PAYMENT_METHODS: 'pix,cash', CARD_MAX_INSTALLMENTS: '13' }),
    ).toEqual([
      'PAYMENT_METHODS: must be pix, card, boleto',
      'CARD_MAX_INSTALLMENTS: must be at most 12',
    ]);
    expect(problems({ ...valid, PAYMENT_METHODS: 'pix', CARD_MAX_INSTALLMENTS: '6' })).toEqual([
      'CARD_MAX_INSTALLMENTS: installments need card among the methods',
    ]);
    expect(problems({ ...valid, CHECKOUT_EXPIRY_MINUTES: '50000' })).toEqual([
      'CHECKOUT_EXPIRY_MINUTES: must be at most 43200 (30 days)',
    ]);
    const config = loadConfig(
      {
        ...valid,
        PAYMENT_METHODS: 'pix,boleto,pix',
        CARD_MAX_INSTALLMENTS: '1',
        CHECKOUT_EXPIRY_MINUTES: '4320',
      },
      emptyDir,
    );
    expect(envShopSettings(config)?.provider.payment).toEqual({
      methods: ['pix', 'boleto'],
      maxInstallments: 1,
    });
    expect(config.checkout.expiryMs).toBe(4320 * 60_000);
    // Unset: what the provider offers, in one payment.
    expect(envShopSettings(loadConfig(valid, emptyDir))?.provider.payment).toEqual({
      methods: ['pix', 'card', 'boleto'],
      maxInstallments: 1,
    });
  });

  it('treats empty values as unset', () => {
    expect(
      loadConfig({ ...valid, DASHBOARD_USER: '', DASHBOARD_PASSWORD: '', PORT: '' }, emptyDir),
    ).toMatchObject({ port: 3000, dashboard: undefined });
  });

  it('requires the dashboard user and password together', () => {
    expect(problems({ ...valid, DASHBOARD_USER: 'ops' })).toEqual([
      'DASHBOARD_PASSWORD: DASHBOARD_USER and DASHBOARD_PASSWORD go together: set both or neither',
    ]);
    expect(
      loadConfig(
        { ...valid, DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'long-enough-pw' },
        emptyDir,
      ).dashboard,
    ).toEqual({ user: 'ops', password: 'long-enough-pw' });
  });

  it('reads a .env file, which the environment overrides', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'connector-dotenv-'));
    writeFileSync(
      path.join(dir, '.env'),
      'PORT=4100\nLOG_LEVEL=debug\n# a comment\nPLATFORM_TIMEOUT_MS="2500"\n',
    );
    const config = loadConfig({ ...valid, LOG_LEVEL: 'warn' }, dir);
    expect(config.port).toBe(4100);
    expect(config.log.level).toBe('warn');
    expect(config.platform.timeoutMs).toBe(2500);
  });

  it('lists every secret, including the Basic credentials as sent', () => {
    const config = loadConfig(
      { ...valid, DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'long-enough-pw' },
      emptyDir,
    );
    expect(config.secrets).toEqual(
      expect.arrayContaining([
        'pw-123456',
        'key-abcdef',
        'a-token-of-16-chars-or-more',
        'long-enough-pw',
        Buffer.from('erp@example.com:pw-123456').toString('base64'),
      ]),
    );
  });

  it('gives the CLI only the platform part, without the checkout token', () => {
    const { CHECKOUT_ROUTE_TOKEN: _unused, ...platformOnly } = valid;
    expect(readConfig(platformCommandConfig, platformOnly, emptyDir).platform.baseUrl).toBe(
      'https://apis.example.com',
    );
  });
});

describe('config/.env.example', () => {
  const example = readFileSync(
    path.join(__dirname, '..', '..', '..', 'config', '.env.example'),
    'utf8',
  );
  const lines = example.split('\n');
  const names = lines.filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l)).map((l) => l.split('=')[0]);

  it('lists exactly the variables of the schema', () => {
    expect([...names].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('explains each variable on the line above it', () => {
    for (const name of names) {
      const index = lines.findIndex((l) => l.startsWith(`${name}=`));
      expect(`${name}: ${lines[index - 1]}`).toMatch(new RegExp(`^${name}: # .{10,}`));
    }
  });

  it('is itself a valid configuration', () => {
    const values = Object.fromEntries(
      lines
        .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
        .map((l) => [l.split('=')[0], l.slice(l.indexOf('=') + 1)]),
    );
    expect(() => loadConfig(values, emptyDir)).not.toThrow();
  });
});

// That config/.env.example, config/defaults.env and docs/reference/configuration.md are what the
// schema writes: test/unit/project/docs-generated.test.ts (npm run docs:check).
describe('config/defaults.env', () => {
  it('names only variables the schema knows and no secrets', () => {
    const defaults = readFileSync(
      path.join(__dirname, '..', '..', '..', 'config', 'defaults.env'),
      'utf8',
    );
    const names = defaults
      .split('\n')
      .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
      .map((l) => l.split('=')[0] as string);
    for (const name of names) expect(CONFIG_VARIABLES).toContain(name);
    expect(names.some((n) => /PASSWORD|TOKEN|API_KEY/.test(n))).toBe(false);
  });
});

describe('the env shop as shops list reads it', () => {
  it('reads .env as every command does, the environment winning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'connector-envshop-'));
    writeFileSync(
      path.join(dir, '.env'),
      'PLATFORM_EMAIL=loja@example.com\nSHOP_NAME=Móveis do Arquivo\nPAYMENT_PROVIDER=stripe\n',
    );
    expect(envShopSummary({}, dir)).toEqual({
      id: 'default',
      name: 'Móveis do Arquivo',
      source: 'environment',
      provider: { name: 'stripe' },
      platform: { email: 'loja@example.com' },
    });
    expect(envShopSummary({ SHOP_NAME: 'Do Ambiente' }, dir)?.name).toBe('Do Ambiente');
    // No PLATFORM_EMAIL anywhere: no env shop.
    expect(envShopSummary({}, emptyDir)).toBeUndefined();
  });
});
