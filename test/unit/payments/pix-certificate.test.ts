import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import type { AppError } from '../../../src/errors';
import { parseShopDocument } from '../../../src/shop-registry/shop-document';
import { envShopSettings } from '../../../src/main/shop-deps';
import { txidOf } from '../../../src/payments/pix/pix-api';
import {
  certificateFromPem,
  certificateFromPkcs12,
  CertificateProblem,
} from '../../../src/payments/pix/pix-certificate';
import { pixProvider } from '../../../src/payments/pix/pix-descriptor';
import { configProblems } from '../../support/config-problems';
import { makePixCertificates, type PixCertificates } from '../../support/pix-certificates';

let certs: PixCertificates;
beforeAll(async () => {
  certs = await makePixCertificates();
});
afterAll(() => certs.remove());

const emptyDir = mkdtempSync(path.join(tmpdir(), 'connector-pix-config-'));
const envShop = {
  PLATFORM_BASE_URL: 'https://apis.example.com/',
  PLATFORM_EMAIL: 'erp@example.com',
  PLATFORM_PASSWORD: 'pw-123456',
  PLATFORM_API_KEY: 'key-abcdef',
  CHECKOUT_ROUTE_TOKEN: 'a-token-of-16-chars-or-more',
  PAYMENT_PROVIDER: 'pix',
  PIX_PSP: 'efi',
  PIX_CLIENT_ID: 'Client_Id_1',
  PIX_CLIENT_SECRET: 'Client_Secret_1',
  PIX_KEY: 'loja@example.com',
};

describe('a shop’s client certificate', () => {
  it('is read from the certificate followed by its key, with its expiry', () => {
    const read = certificateFromPem(certs.clientPem);
    expect(read.notAfter).toEqual(certs.clientNotAfter);
    expect(read.key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('is read from a PKCS#12 file with its passphrase, the same certificate', () => {
    const read = certificateFromPkcs12(certs.clientPkcs12Base64, certs.pkcs12Passphrase);
    expect(read.cert).toContain(certs.clientCertPem.trim().split('\n')[1]);
    expect(read.notAfter).toEqual(certs.clientNotAfter);
  });

  it.each([
    ['no certificate', () => certificateFromPem(certs.clientKeyPem), 'holds no PEM certificate'],
    ['no key', () => certificateFromPem(certs.clientCertPem), 'holds no PEM private key'],
    [
      'another certificate’s key',
      () => certificateFromPem(`${certs.clientCertPem}\n${certs.serverKeyPem}`),
      "is not the certificate's",
    ],
    [
      'a wrong passphrase',
      () => certificateFromPkcs12(certs.clientPkcs12Base64, 'not-it'),
      'not its passphrase',
    ],
  ])('is refused with %s, saying why and nothing of the key', (_what, read, said) => {
    expect(read).toThrow(CertificateProblem);
    expect(read).toThrow(said);
    expect(read).not.toThrow(/PRIVATE KEY/);
  });

  it('is refused in a shop’s document when missing, or given twice', () => {
    const document = {
      name: 'pix',
      psp: 'efi',
      clientId: 'id',
      clientSecret: 'secret',
      pixKey: 'loja@example.com',
    };
    const problems = (extra: object) =>
      pixProvider.document
        .safeParse({ ...document, ...extra })
        .error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(problems({})).toEqual([expect.stringMatching(/^certificate: is missing/)]);
    expect(problems({ certificate: certs.clientPem, pkcs12: certs.clientPkcs12Base64 })).toEqual([
      'pkcs12: give `certificate` or `pkcs12`, not both',
    ]);
    expect(problems({ psp: 'generic', certificate: certs.clientPem })).toEqual([
      'apiUrl: is required for API Pix (generic PSP)',
    ]);
    expect(problems({ certificate: certs.clientPem })).toBeUndefined();
  });
});

describe('the env shop’s certificate files', () => {
  it('joins PIX_CERT_FILE and PIX_KEY_FILE into the certificate, and its expiry is watched', () => {
    const config = loadConfig(
      { ...envShop, PIX_CERT_FILE: certs.files.clientCert, PIX_KEY_FILE: certs.files.clientKey },
      emptyDir,
    );
    const settings = envShopSettings(config);
    expect(settings?.provider.credentialExpiry).toEqual({
      kind: 'client_certificate',
      expiresAt: certs.clientNotAfter.toISOString(),
    });
  });

  it('reads PIX_PKCS12_FILE with PIX_PKCS12_PASSPHRASE', () => {
    const config = loadConfig(
      {
        ...envShop,
        PIX_PKCS12_FILE: certs.files.pkcs12,
        PIX_PKCS12_PASSPHRASE: certs.pkcs12Passphrase,
      },
      emptyDir,
    );
    expect(envShopSettings(config)?.provider.credentialExpiry?.expiresAt).toBe(
      certs.clientNotAfter.toISOString(),
    );
  });

  it('refuses to start with a file it cannot read, or a certificate without its key', () => {
    const missing = path.join(emptyDir, 'nowhere.pem');
    expect(configProblems({ ...envShop, PIX_CERT_FILE: missing }, emptyDir)).toEqual([
      expect.stringMatching(/PIX_CERT_FILE.*cannot read the file .*nowhere\.pem \(ENOENT\)/),
    ]);
    const certOnly = path.join(emptyDir, 'cert-only.pem');
    writeFileSync(certOnly, certs.clientCertPem);
    expect(configProblems({ ...envShop, PIX_CERT_FILE: certOnly }, emptyDir).join('\n')).toMatch(
      /holds no PEM private key/,
    );
  });
});

describe('a charge’s txid', () => {
  it('is 35 letters and digits, the same for the same checkout, another for another', () => {
    const txid = txidOf('chk_loja-a_0123456789abcdef01234567');
    expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(txidOf('chk_loja-a_0123456789abcdef01234567')).toBe(txid);
    expect(txidOf('chk_loja-b_0123456789abcdef01234567')).not.toBe(txid);
  });
});

describe('where a Pix shop’s secrets may be sent', () => {
  const pixShop = (provider: object) => ({
    id: 'loja-pix',
    name: 'Loja Pix',
    platform: { email: 'loja@example.com', password: 'pw-123456', apiKey: 'key-abcdef' },
    provider: {
      name: 'pix',
      psp: 'efi',
      clientId: 'id',
      clientSecret: 'secret',
      certificate: certs.clientPem,
      pixKey: 'loja@example.com',
      ...provider,
    },
  });
  const refusedFields = (provider: object, listed: string[] = []) => {
    try {
      parseShopDocument(pixShop(provider), listed);
      return [];
    } catch (error) {
      return ((error as AppError).details ?? []).map((detail) => detail.field);
    }
  };

  it('refuses a token URL on a host that is neither a bank’s nor listed: the secret goes there', () => {
    expect(refusedFields({ tokenUrl: 'https://collector.example.com/oauth/token' })).toEqual([
      'provider.tokenUrl',
    ]);
    expect(refusedFields({ apiUrl: 'https://collector.example.com/v2' })).toEqual([
      'provider.apiUrl',
    ]);
  });

  it('takes a bank’s own hosts, and a listed origin', () => {
    expect(refusedFields({ tokenUrl: 'https://pix.api.efipay.com.br/oauth/token' })).toEqual([]);
    const proxy = 'https://pix-proxy.example.com:8443';
    expect(
      refusedFields({ apiUrl: `${proxy}/v2`, tokenUrl: `${proxy}/oauth/token` }, [proxy]),
    ).toEqual([]);
  });
});
