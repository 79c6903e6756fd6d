import { createHmac } from 'node:crypto';
import { ConfigError, loadConfig } from '../../../src/config';
import { signatureHeader, verifySignature } from '../../../src/erp/signature';
import { serviceFingerprint } from '../../../src/sync/fingerprint';

describe('the webhook signature', () => {
  const secret = 'erp-webhook-secret-0123456789';
  const body = '{"id":1001,"status":{"code":6}}';
  const now = 1_800_000_000;

  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">, as docs/erp-sync.md documents', () => {
    expect(signatureHeader(secret, body, now)).toBe(
      `t=${now},v1=${createHmac('sha256', secret).update(`${now}.${body}`).digest('hex')}`,
    );
  });

  it('verifies the right body, and refuses another secret, another body or a stale time', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(secret, body, header, now + 10)).toBe('default');
    expect(verifySignature('another-secret-0123456789', body, header, now)).toBeUndefined();
    expect(verifySignature(secret, body.replace('6', '7'), header, now)).toBeUndefined();
    expect(verifySignature(secret, body, header, now + 301)).toBeUndefined();
    expect(verifySignature(secret, body, undefined, now)).toBeUndefined();
    expect(verifySignature(secret, body, 't=abc,v1=00', now)).toBeUndefined();
  });

  it("signs a registry shop's delivery with its shop: another shop, or none, does not verify", () => {
    const header = signatureHeader(secret, body, now, 'loja-b');
    const v1 = createHmac('sha256', secret).update(`${now}.loja-b.${body}`).digest('hex');
    expect(header).toBe(`t=${now},shop=loja-b,v1=${v1}`);
    expect(verifySignature(secret, body, header, now)).toBe('loja-b');
    expect(verifySignature(secret, body, header.replace('loja-b', 'loja-c'), now)).toBeUndefined();
    expect(verifySignature(secret, body, header.replace(',shop=loja-b', ''), now)).toBeUndefined();
  });
});

describe('the sync fingerprint', () => {
  const item = {
    id: 1001,
    status: { code: 4, created_date: '2026-03-02 10:00:00', budgeted_date: '2026-03-02 10:00:00' },
  };

  it('is the same for either of the platform date formats and a numeric-string code', () => {
    const iso = {
      id: '1001',
      status: {
        code: '4',
        created_date: '2026-03-02T13:00:00Z',
        budgeted_date: '2026-03-02T10:00:00-03:00',
      },
    };
    expect(serviceFingerprint(iso)).toBe(serviceFingerprint(item));
    expect(serviceFingerprint(item)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with the status code or a status date, not with other fields', () => {
    const base = serviceFingerprint(item);
    expect(serviceFingerprint({ ...item, status: { ...item.status, code: 6 } })).not.toBe(base);
    expect(
      serviceFingerprint({
        ...item,
        status: { ...item.status, authorized_date: '2026-03-04 09:00:00' },
      }),
    ).not.toBe(base);
    expect(serviceFingerprint({ ...item, internal_code: 'ERP-1' } as typeof item)).toBe(base);
    expect(serviceFingerprint({ id: 1001 })).not.toBe(base);
  });
});

describe('the sync configuration', () => {
  const env = {
    PLATFORM_BASE_URL: 'http://127.0.0.1:4000',
    PLATFORM_EMAIL: 'a@b.c',
    PLATFORM_PASSWORD: 'pw',
    PLATFORM_API_KEY: 'key',
    CHECKOUT_ROUTE_TOKEN: 'route-token-0123456789',
    NODE_ENV: 'test',
  };
  const problems = (extra: Record<string, string>) => {
    try {
      loadConfig({ ...env, ...extra }, '/nonexistent');
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  };

  it('is off by default, with statuses 4 and 6', () => {
    expect(loadConfig(env, '/nonexistent').sync).toEqual({
      intervalMs: undefined,
      statuses: [4, 6],
      sink: undefined,
    });
  });

  it('reads SYNC_INTERVAL as a duration and the sink with what it needs', () => {
    const config = loadConfig(
      {
        ...env,
        SYNC_INTERVAL: '5m',
        SYNC_STATUSES: '6,7,6',
        ERP_SINK: 'webhook',
        ERP_WEBHOOK_URL: 'https://user:url-password@erp.example/hook',
        ERP_WEBHOOK_SECRET: 'erp-webhook-secret-0123456789',
      },
      '/nonexistent',
    );
    expect(config.sync).toEqual({
      intervalMs: 300_000,
      statuses: [6, 7],
      sink: {
        kind: 'webhook',
        url: 'https://user:url-password@erp.example/hook',
        secret: 'erp-webhook-secret-0123456789',
        timeoutMs: 10_000,
      },
    });
    // The secret and the URL's password are never logged.
    expect(config.secrets).toEqual(
      expect.arrayContaining(['erp-webhook-secret-0123456789', 'url-password']),
    );
    for (const [text, ms] of [
      ['30s', 30_000],
      ['1h', 3_600_000],
      ['1500ms', 1500],
      ['2000', 2000],
    ] as const)
      expect(
        loadConfig(
          { ...env, SYNC_INTERVAL: text, ERP_SINK: 'directory', ERP_EXPORT_DIR: '/tmp/x' },
          '/nonexistent',
        ).sync.intervalMs,
      ).toBe(ms);
  });

  it('says what is missing or wrong, one line each', () => {
    expect(problems({ SYNC_INTERVAL: '5m' })).toEqual([
      'ERP_SINK: is required with SYNC_INTERVAL: say where services go (webhook or directory)',
    ]);
    expect(problems({ ERP_SINK: 'webhook' })).toEqual([
      'ERP_WEBHOOK_URL: is required with ERP_SINK=webhook',
      'ERP_WEBHOOK_SECRET: is required with ERP_SINK=webhook',
    ]);
    expect(problems({ ERP_SINK: 'directory' })).toEqual([
      'ERP_EXPORT_DIR: is required with ERP_SINK=directory',
    ]);
    expect(problems({ ERP_SINK: 'ftp', SYNC_INTERVAL: 'often', SYNC_STATUSES: '4;6' })).toEqual([
      'SYNC_INTERVAL: must be a duration such as 30s, 5m or 1h',
      'SYNC_STATUSES: must be status codes separated by commas, such as 4,6',
      'ERP_SINK: must be webhook or directory',
    ]);
    expect(
      problems({ SYNC_INTERVAL: '500ms', ERP_SINK: 'directory', ERP_EXPORT_DIR: '/x' }),
    ).toEqual(['SYNC_INTERVAL: must be at least 1s']);
  });
});
