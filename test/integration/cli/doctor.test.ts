import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hasFlag } from '@ioredis/commands';
import express from 'express';
import Redis from 'ioredis';
import { freePort } from '../../../src/demo/free-port';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { monitorRedis, type Monitored } from '../../support/redis-monitor';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/** A Mercado Pago whose account owner can revoke the access token the fake was made with. */
class RevocableMercadoPago extends FakeMercadoPago {
  revoked = false;

  protected override buildApp(): express.Express {
    const fake = super.buildApp();
    const app = express();
    app.use((_req, res, next) => {
      if (!this.revoked) return next();
      res.status(401).json({ message: 'invalid access token', error: 'unauthorized', status: 401 });
    });
    app.use(fake);
    return app;
  }
}

/**
 * `connector doctor` (CONTRACT "The first hour"): the configuration checked as an operator would,
 * against a private redis-server, the platform simulator and a loopback Mercado Pago.
 */
describe('connector doctor', () => {
  let redis: TestRedis;
  let simulator: PlatformSimulator;
  let platformUrl: string;
  let mercadopago: RevocableMercadoPago;
  let probe: Redis;
  const dir = mkdtempSync(path.join(tmpdir(), 'doctor-cli-'));
  const routeToken = `route-${randomBytes(12).toString('hex')}`;
  const keyring = `k1:${randomBytes(32).toString('base64')}`;

  beforeAll(async () => {
    // Its own Redis: the suite reconfigures it, and watches every command it runs.
    redis = await startTestRedis({ private: true });
    simulator = new PlatformSimulator();
    platformUrl = await simulator.start();
    mercadopago = new RevocableMercadoPago();
    await mercadopago.start();
    probe = new Redis(redis.url, { lazyConnect: true });
    await probe.connect();
  });
  afterAll(async () => {
    await probe?.quit();
    await mercadopago?.stop();
    await simulator?.stop();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A deployment's variables: its own QUEUE_PREFIX, the env shop on the sandbox, a keyring. */
  const deployment = (): Record<string, string> => ({
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    QUEUE_PREFIX: `doctor-${randomBytes(4).toString('hex')}`,
    PLATFORM_BASE_URL: platformUrl,
    PLATFORM_TIMEOUT_MS: '5000',
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_TOKEN: routeToken,
    SHOP_SECRET_KEYS: keyring,
    PROVIDER_API_ORIGINS: mercadopago.url,
    PUBLIC_URL: 'https://connector.example.com',
  });

  /** Adds a registry shop with `connector shops add`, its platform account known to the simulator. */
  async function addShop(
    env: Record<string, string>,
    id: string,
    provider: Record<string, string>,
  ): Promise<{ password: string; apiKey: string }> {
    const platform = {
      email: `${id}@shops.example.com`,
      password: `pw-${randomBytes(6).toString('hex')}`,
      apiKey: `key-${randomBytes(6).toString('hex')}`,
    };
    simulator.state.addAccount(platform);
    const file = path.join(dir, `${id}.json`);
    writeFileSync(file, JSON.stringify({ name: `Loja ${id}`, platform, provider }));
    const added = await runCliCaptured(['shops', 'add', id, '--file', file], env);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    return platform;
  }

  const doctor = (env: Record<string, string>, ...args: string[]) =>
    runCliCaptured(['doctor', ...args], env);
  const lines = (text: string) => text.split('\n').filter((line) => line !== '');
  const lineOf = (text: string, pattern: RegExp) => lines(text).find((line) => pattern.test(line));

  it('says ok on every line of a healthy configuration, exits 0, and writes nothing to Redis', async () => {
    const env = deployment();
    const shop = await addShop(env, 'loja-saudavel', { name: 'sandbox' });
    const monitor = await monitorRedis(redis.url);
    const seen: Monitored[] = [];
    monitor.onCommand((command) => seen.push(command));
    try {
      const table = await doctor(env);
      const json = await doctor(env, '--format', 'json');
      await monitor.caughtUp(probe);

      expect(table).toMatchObject({ code: 0, stderr: '' });
      const found = lines(table.stdout);
      expect(found.filter((line) => !line.startsWith('ok  '))).toEqual([]);
      for (const subject of ['redis', 'platform', 'shop default', 'shop loja-saudavel'])
        expect(found.some((line) => line.startsWith(`ok    ${subject} `))).toBe(true);
      expect(lineOf(table.stdout, /maxmemory-policy/)).toMatch(/noeviction/);
      for (const secret of [shop.password, shop.apiKey, DEMO_CREDENTIALS.password, keyring])
        expect(table.stdout).not.toContain(secret);

      expect(json).toMatchObject({ code: 0, stderr: '' });
      const answer = JSON.parse(json.stdout) as {
        ok: boolean;
        findings: Array<{ status: string; subject: string; found: string }>;
      };
      expect(answer.ok).toBe(true);
      expect(answer.findings.length).toBe(found.length);
      expect(new Set(answer.findings.map((finding) => finding.status))).toEqual(new Set(['ok']));

      // Doctor only reads: no command of its runs is one that writes.
      const writes = seen
        .map(({ args }) => (args[0] ?? '').toLowerCase())
        .filter((name) => name !== 'echo' && hasFlag(name, 'write'));
      expect(writes).toEqual([]);
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      await monitor.close();
    }
  });

  it('names REDIS_URL without its password when Redis does not answer, in one line, and exits 1', async () => {
    const port = await freePort();
    const password = `redis-${randomBytes(6).toString('hex')}`;
    const run = await doctor({
      ...deployment(),
      REDIS_URL: `redis://:${password}@127.0.0.1:${port}`,
    });

    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toContain(password);
    const redisLines = lines(run.stdout).filter((line) => line.includes('REDIS_URL'));
    expect(redisLines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^FAIL  redis .*REDIS_URL redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}.*; fix: .*start it`,
        ),
      ),
    ]);
    // What needs Redis is skipped, said once; the platform is checked all the same.
    expect(lineOf(run.stdout, /^skip +shops /)).toContain('Redis cannot be used');
    expect(lineOf(run.stdout, /^ok +platform /)).toBeDefined();
    // No stream of connection errors: stderr is doctor's one closing line.
    expect(lines(run.stderr)).toEqual([expect.stringMatching(/^error: 1 check\(s\) failed/)]);
  });

  it('says how to fix a Redis that may evict keys: a warning, a failure in production', async () => {
    await probe.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const env = deployment();
      const development = await doctor(env);
      expect(development.code).toBe(0);
      expect(lineOf(development.stdout, /maxmemory-policy/)).toMatch(
        /^warn +redis +maxmemory-policy allkeys-lru: .*; fix: set maxmemory-policy noeviction/,
      );

      const production = await doctor({ ...env, NODE_ENV: 'production' });
      expect(production.code).toBe(1);
      expect(lineOf(production.stdout, /maxmemory-policy/)).toMatch(
        /^FAIL +redis +maxmemory-policy allkeys-lru: .*refuses to start.*; fix: set maxmemory-policy noeviction/,
      );
    } finally {
      await probe.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });

  it('warns when the Pix watch outlasts the checkout records (they go first), exits 0', async () => {
    const run = await doctor({ ...deployment(), CHECKOUT_RETENTION_DAYS: '60' });
    expect(run.code).toBe(0);
    expect(lineOf(run.stdout, /PIX_WATCH_DAYS/)).toMatch(
      /^warn +config +PIX_WATCH_DAYS 92 is longer than CHECKOUT_RETENTION_DAYS 60: .*; fix: .*CHECKOUT_RETENTION_DAYS=92/,
    );
    const within = await doctor({
      ...deployment(),
      CHECKOUT_RETENTION_DAYS: '60',
      PIX_WATCH_DAYS: '60',
    });
    expect(lineOf(within.stdout, /PIX_WATCH_DAYS/)).toBeUndefined();
  });

  it('says the platform refused the account, with the variables to check, and exits 1', async () => {
    const wrong = `wrong-${randomBytes(6).toString('hex')}`;
    const run = await doctor({ ...deployment(), PLATFORM_PASSWORD: wrong });

    expect(run.code).toBe(1);
    expect(lineOf(run.stdout, /^FAIL +platform /)).toMatch(
      new RegExp(
        `${platformUrl.replace(/[.]/g, '\\.')} refused PLATFORM_EMAIL's account .*\\(HTTP 401\\); fix: check PLATFORM_EMAIL, PLATFORM_PASSWORD and PLATFORM_API_KEY`,
      ),
    );
    expect(run.stdout + run.stderr).not.toContain(wrong);
  });

  it('names each shop whose provider refuses its keys, the env shop and a registry one, and exits 1', async () => {
    const env = {
      ...deployment(),
      PAYMENT_PROVIDER: 'mercadopago',
      MERCADOPAGO_ACCESS_TOKEN: `TEST-wrong-${randomBytes(6).toString('hex')}`,
      MERCADOPAGO_WEBHOOK_SECRET: 'webhook-secret-of-the-env-shop',
      MERCADOPAGO_API_URL: mercadopago.url,
    };
    await addShop(env, 'loja-revogada', {
      name: 'mercadopago',
      accessToken: mercadopago.accessToken,
      webhookSecret: mercadopago.webhookSecret,
      apiUrl: mercadopago.url,
    });
    await addShop(env, 'loja-em-dia', { name: 'sandbox' });
    mercadopago.revoked = true;
    try {
      const run = await doctor(env, '--format', 'json');
      expect(run.code).toBe(1);
      const { ok, findings } = JSON.parse(run.stdout) as {
        ok: boolean;
        findings: Array<{ status: string; subject: string; found: string; fix?: string }>;
      };
      expect(ok).toBe(false);
      const failed = findings.filter((finding) => finding.status === 'fail');
      expect(failed).toEqual([
        expect.objectContaining({
          subject: 'shop default',
          found: 'mercadopago refused the keys (HTTP 401)',
          fix: expect.stringContaining('MERCADOPAGO_*'),
        }),
        expect.objectContaining({
          subject: 'shop loja-revogada',
          found: 'mercadopago refused the keys (HTTP 401)',
          fix: expect.stringContaining('connector shops update loja-revogada'),
        }),
      ]);
      expect(findings.find((finding) => finding.subject === 'shop loja-em-dia')).toMatchObject({
        status: 'ok',
      });
      expect(run.stdout).not.toContain(env.MERCADOPAGO_ACCESS_TOKEN);
      expect(run.stdout).not.toContain(mercadopago.accessToken);
    } finally {
      mercadopago.revoked = false;
    }
  });

  it("says which shops' secrets do not open with SHOP_SECRET_KEYS, and which key they need", async () => {
    const env = deployment();
    await addShop(env, 'loja-chave', { name: 'sandbox' });

    const otherKeys = await doctor({
      ...env,
      SHOP_SECRET_KEYS: `k2:${randomBytes(32).toString('base64')}`,
    });
    expect(otherKeys.code).toBe(1);
    expect(lineOf(otherKeys.stdout, /^FAIL +shop loja-chave /)).toMatch(
      /secrets do not open with SHOP_SECRET_KEYS: .*k1.*; fix: add key k1 back to SHOP_SECRET_KEYS/,
    );

    const { SHOP_SECRET_KEYS: _keys, ...withoutKeys } = env;
    const noKeys = await doctor(withoutKeys);
    expect(noKeys.code).toBe(1);
    expect(lineOf(noKeys.stdout, /^FAIL +shops /)).toMatch(
      /SHOP_SECRET_KEYS is not set, and the registry holds 1 shop\(s\) .*\(loja-chave\); fix: set SHOP_SECRET_KEYS/,
    );
  });

  it('says what is missing from the configuration as findings, never exit 78', async () => {
    const { PLATFORM_BASE_URL: _host, PLATFORM_API_KEY: _key, ...env } = deployment();
    const run = await doctor({ ...env, PORT: 'not-a-port' });

    expect(run.code).toBe(1);
    expect(lineOf(run.stdout, /PLATFORM_BASE_URL/)).toMatch(
      /^FAIL +platform +PLATFORM_BASE_URL is not set; fix: set PLATFORM_BASE_URL/,
    );
    expect(lineOf(run.stdout, /PLATFORM_API_KEY/)).toMatch(
      /^FAIL +platform +PLATFORM_API_KEY is not set \(required with PLATFORM_EMAIL/,
    );
    expect(lineOf(run.stdout, /PORT/)).toMatch(/^FAIL +config +PORT: .*; fix: correct PORT/);
    // Redis is checked all the same.
    expect(lineOf(run.stdout, /^ok +redis +REDIS_URL/)).toBeDefined();
  });

  it('refuses what is not an option as a usage error (2), and says every check under --help', async () => {
    expect(await doctor(deployment(), '--format', 'yaml')).toMatchObject({ code: 2 });
    const help = await doctor({}, '--help');
    expect(help.code).toBe(0);
    for (const word of ['redis', 'platform', 'shop <id>', 'maxmemory-policy', 'Exit codes'])
      expect(help.stdout).toContain(word);
    expect(help.stdout.match(/default:/g)?.length).toBe(1);
  });
});
