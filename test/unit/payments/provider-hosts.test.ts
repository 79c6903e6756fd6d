import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, readConfig, shopsConfig } from '../../../src/config';
import { ASAAS_API } from '../../../src/payments/asaas/asaas-api';
import { MERCADOPAGO_API } from '../../../src/payments/mercadopago/mercadopago-api';
import { apiBaseUrl, apiUrlProblem, parseApiOrigins } from '../../../src/payments/provider-hosts';
import { STRIPE_API } from '../../../src/payments/stripe/stripe-api';
import { envShopSettings } from '../../../src/main/shop-deps';
import { configProblems } from '../../support/config-problems';

/** CONTRACT "The trust boundary of a shop", provider hosts: the allow-list and its variables. */
const emptyDir = mkdtempSync(path.join(tmpdir(), 'provider-hosts-'));
const envShop = {
  PLATFORM_BASE_URL: 'https://apis.example.com',
  PLATFORM_EMAIL: 'erp@example.com',
  PLATFORM_PASSWORD: 'pw-123456',
  PLATFORM_API_KEY: 'key-abcdef',
  CHECKOUT_ROUTE_TOKEN: 'a-token-of-16-chars-or-more',
};
const mercadopago = {
  ...envShop,
  PAYMENT_PROVIDER: 'mercadopago',
  MERCADOPAGO_ACCESS_TOKEN: 'APP_USR-1234-abcd',
  MERCADOPAGO_WEBHOOK_SECRET: 'a-webhook-secret-of-16',
};
const asaas = {
  ...envShop,
  PAYMENT_PROVIDER: 'asaas',
  ASAAS_API_KEY: '$aact_hmlg_000abc',
  ASAAS_WEBHOOK_TOKEN: 'a'.repeat(40),
};

const problems = (env: Record<string, string>): string[] => configProblems(env, emptyDir);

describe('a provider API URL', () => {
  it("is allowed at the provider's official hosts, production and sandbox", () => {
    expect(apiUrlProblem(MERCADOPAGO_API, 'https://api.mercadopago.com', [])).toBeUndefined();
    expect(apiUrlProblem(STRIPE_API, 'https://api.stripe.com:443/', [])).toBeUndefined();
    expect(apiUrlProblem(ASAAS_API, 'https://api-sandbox.asaas.com/v3', [])).toBeUndefined();
    expect(apiUrlProblem(ASAAS_API, 'https://api.asaas.com/v3', [])).toBeUndefined();
    expect(apiBaseUrl(ASAAS_API, 'sandbox')).toBe('https://api-sandbox.asaas.com/v3');
    expect(apiBaseUrl(ASAAS_API)).toBe('https://api.asaas.com/v3');
  });

  it('is compared by exact origin, never by prefix, nor by another provider', () => {
    const listed = ['http://127.0.0.1:4010'];
    expect(apiUrlProblem(MERCADOPAGO_API, 'http://127.0.0.1:4010/v1?x', listed)).toBeUndefined();
    for (const url of [
      'http://api.mercadopago.com', // another scheme
      'https://api.mercadopago.com:8443', // another port
      'https://api.mercadopago.com.evil.example', // a prefix
      'https://evil.example/api.mercadopago.com',
      'https://api.stripe.com', // another provider's host
      'http://127.0.0.1:4011',
      'http://127.0.0.1',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
    ])
      expect([url, apiUrlProblem(MERCADOPAGO_API, url, listed)]).toEqual([
        url,
        expect.stringContaining('PROVIDER_API_ORIGINS'),
      ]);
    // A numeric host is read as the address it spells: listed or not, like any other.
    expect(apiUrlProblem(MERCADOPAGO_API, 'http://2130706433:4010/', listed)).toBeUndefined();
    expect(apiUrlProblem(MERCADOPAGO_API, 'http://2130706433/', listed)).toContain('not in');
    for (const url of [
      'https://u:p@api.mercadopago.com',
      'https://api.mercadopago.com@evil.example',
    ])
      expect(apiUrlProblem(MERCADOPAGO_API, url, [])).toBe('must not carry credentials');
  });

  it('reads PROVIDER_API_ORIGINS as origins, refusing paths, queries and credentials', () => {
    expect(parseApiOrigins(' http://127.0.0.1:4010 , https://Proxy.Example.com:443/,')).toEqual({
      origins: ['http://127.0.0.1:4010', 'https://proxy.example.com'],
      problems: [],
    });
    for (const entry of ['https://x.example/v3', 'https://x.example?a=1', 'https://u@x.example'])
      expect(parseApiOrigins(entry).problems).toHaveLength(1);
    expect(parseApiOrigins('ftp://x.example').problems).toHaveLength(1);
    expect(parseApiOrigins('not a url').problems[0]).toContain('is not an origin');
  });
});

describe("the env shop's provider host", () => {
  it('refuses an API URL outside the official hosts unless PROVIDER_API_ORIGINS lists it (78)', () => {
    expect(problems({ ...mercadopago, MERCADOPAGO_API_URL: 'http://127.0.0.1:4010' })).toEqual([
      expect.stringMatching(
        /^MERCADOPAGO_API_URL: is not Mercado Pago's API .*PROVIDER_API_ORIGINS/,
      ),
    ]);
    const config = loadConfig(
      {
        ...mercadopago,
        MERCADOPAGO_API_URL: 'http://127.0.0.1:4010',
        PROVIDER_API_ORIGINS: 'http://127.0.0.1:4010',
      },
      emptyDir,
    );
    expect(envShopSettings(config)?.provider.mercadopago?.apiUrl).toBe('http://127.0.0.1:4010');
    expect(config.providerApiOrigins).toEqual(['http://127.0.0.1:4010']);
    expect(problems({ ...mercadopago, PROVIDER_API_ORIGINS: 'http://127.0.0.1:4010/x' })).toEqual([
      expect.stringMatching(/^PROVIDER_API_ORIGINS: "http:\/\/127.0.0.1:4010\/x" is not an origin/),
    ]);
  });

  it("keeps today's variables: Asaas's sandbox by its URL or by ASAAS_ENVIRONMENT", () => {
    const byUrl = loadConfig(
      { ...asaas, ASAAS_API_URL: 'https://api-sandbox.asaas.com/v3' },
      emptyDir,
    );
    const byEnvironment = loadConfig({ ...asaas, ASAAS_ENVIRONMENT: 'sandbox' }, emptyDir);
    const production = loadConfig(asaas, emptyDir);
    expect(envShopSettings(byUrl)?.provider.asaas?.apiUrl).toBe('https://api-sandbox.asaas.com/v3');
    expect(envShopSettings(byEnvironment)?.provider.asaas?.apiUrl).toBe(
      'https://api-sandbox.asaas.com/v3',
    );
    expect(envShopSettings(production)?.provider.asaas?.apiUrl).toBe('https://api.asaas.com/v3');
    expect(problems({ ...mercadopago, MERCADOPAGO_ENVIRONMENT: 'sandbox' })).toEqual([
      expect.stringMatching(/^MERCADOPAGO_ENVIRONMENT: Mercado Pago has one API host/),
    ]);
  });

  it('gives the CLI the same list, for the documents it adds', () => {
    const cli = readConfig(
      shopsConfig({ keys: false, platform: true }),
      {
        PLATFORM_BASE_URL: 'https://apis.example.com',
        PROVIDER_API_ORIGINS: 'https://proxy.example.com:8443',
      },
      emptyDir,
    );
    expect(cli.providerApiOrigins).toEqual(['https://proxy.example.com:8443']);
  });
});
