import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';
import { FakeErp } from '../../support/fake-erp';
import { eventually, startHarness, type Harness } from '../../support/harness';

/*
 * The CLI's data commands for a registry shop (`--shop`, CONTRACT "Shops"), and the ERP sync per
 * shop: the webhook names and signs the shop, the directory sink writes a folder per shop, the
 * env shop's deliveries and files are as they always were.
 */
const ERP_SECRET = 'erp-webhook-secret-0123456789';
const KEYS = `k1:${randomBytes(32).toString('base64')}`;

describe('a registry shop from the command line, and its ERP sync', () => {
  let h: Harness;
  let erp: FakeErp;
  let env: Record<string, string>;
  const dir = mkdtempSync(path.join(tmpdir(), 'shop-data-cli-'));
  const account = {
    email: 'data-cli@shops.example.com',
    password: `pw-${randomBytes(6).toString('hex')}`,
    apiKey: `key-${randomBytes(6).toString('hex')}`,
  };
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCliCaptured(args, { ...env, ...extra });

  beforeAll(async () => {
    erp = new FakeErp(ERP_SECRET);
    await erp.start();
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: KEYS,
        SHOP_REFRESH_MS: '200',
        ERP_SINK: 'webhook',
        ERP_WEBHOOK_URL: erp.url,
        ERP_WEBHOOK_SECRET: ERP_SECRET,
      },
    });
    h.simulator.state.addAccount(account);
    // What the CLI sees: the deployment's Redis, keyring and platform host, and the env shop.
    env = {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      PLATFORM_BASE_URL: h.platformUrl,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
      SHOP_SECRET_KEYS: KEYS,
      PUBLIC_URL: h.url,
      LOG_LEVEL: 'error',
    };
  });
  afterAll(async () => {
    await h.stop();
    await erp.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads, links, opens, tells and retries a shop’s data with --shop, and syncs it per shop', async () => {
    const documentFile = path.join(dir, 'shop.json');
    writeFileSync(
      documentFile,
      JSON.stringify({ name: 'Loja Dados', platform: account, provider: { name: 'sandbox' } }),
    );
    const added = await cli(['shops', 'add', 'loja-dados', '--file', documentFile]);
    expect(added).toMatchObject({ code: 0 });
    const token = /route token: +(\S+)/.exec(added.stdout)?.[1] ?? '';
    await h.connector.registry.refresh();

    // services: with the shop's own platform account. Its account failing fails its commands
    // only; the env shop's still answer.
    expect(await cli(['services', 'get', '1001', '--json', '--shop', 'loja-dados'])).toMatchObject({
      code: 0,
    });
    h.simulator.faults.add({ account: account.email, match: '/services', status: 503 });
    const failing = await cli(['services', 'get', '1001', '--json', '--shop', 'loja-dados']);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain('PLATFORM_UNAVAILABLE');
    expect(await cli(['services', 'get', '1001', '--json'])).toMatchObject({ code: 0 });
    h.simulator.faults.clear();
    const listed = await cli(['services', 'list', '--limit', '2', '--shop', 'loja-dados']);
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.stdout).toContain('1001');
    expect(await cli(['services', 'link', '1002', 'PED-9', '--shop', 'loja-dados'])).toMatchObject({
      code: 0,
    });
    expect(h.simulator.state.internalCode(1002)).toBe('PED-9');
    // A shop not in the registry, a malformed id, a registry shop without the keyring.
    const unknown = await cli(['services', 'get', '1001', '--shop', 'loja-nenhuma']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('SHOP_NOT_FOUND');
    expect((await cli(['services', 'get', '1001', '--shop', 'Loja!'])).code).toBe(2);
    const noKeys = await cli(['services', 'get', '1001', '--shop', 'loja-dados'], {
      SHOP_SECRET_KEYS: undefined,
    });
    expect(noKeys.code).toBe(78);
    expect(noKeys.stderr).toContain('SHOP_SECRET_KEYS: is required');
    for (const output of [listed, failing, unknown, noKeys])
      for (const secret of [account.password, account.apiKey, token])
        expect(output.stdout + output.stderr).not.toContain(secret);

    // checkout start: the shop's route, with the token `shops add` printed.
    const noToken = await cli(['checkout', 'start', '1003', '--shop', 'loja-dados']);
    expect(noToken.code).toBe(78);
    expect(noToken.stderr).toContain('SHOP_ROUTE_TOKEN: is required');
    const started = await cli(
      ['checkout', 'start', '1003', '--shop', 'loja-dados', '--wait', '20', '--format', 'json'],
      { SHOP_ROUTE_TOKEN: token },
    );
    expect(started).toMatchObject({ code: 0 });
    const result = JSON.parse(started.stdout) as { checkout_id: string; checkout_url: string };
    expect(result.checkout_id).toMatch(/^chk_loja-dados_[0-9a-f]{24}$/);
    expect(
      h.simulator
        .accepted('checkout-url')
        .filter((c) => c.serviceId === 1003)
        .map((c) => c.account),
    ).toEqual([account.email]);

    // checkout status: the shop's story; the env shop has no checkout of that service.
    const story = await cli(['checkout', 'status', '1003', '--shop', 'loja-dados']);
    expect(story).toMatchObject({ code: 0 });
    expect(story.stdout).toContain(result.checkout_id);
    const envStory = await cli(['checkout', 'status', '1003']);
    expect(envStory.code).toBe(1);
    expect(envStory.stderr).toContain('no checkouts of service 1003 in shop default');

    // A finish the platform refuses for good lands in the failed set, named by its shop.
    h.simulator.faults.add({
      account: account.email,
      match: '/payment/finish-checkout',
      status: 400,
    });
    const pay = await fetch(`${result.checkout_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    await eventually(async () => {
      const failed = await cli(['notifications', 'failed', '--format', 'json']);
      return failed.stdout.includes(result.checkout_id) ? true : undefined;
    });
    const everyShop = JSON.parse(
      (await cli(['notifications', 'failed', '--format', 'json'])).stdout,
    ) as Array<{ id: string; shop: string }>;
    expect(everyShop).toContainEqual(
      expect.objectContaining({ id: `finish-${result.checkout_id}`, shop: 'loja-dados' }),
    );
    expect(await cli(['notifications', 'failed', '--shop', 'default'])).toMatchObject({
      code: 0,
      stdout: 'no failed deliveries of shop default\n',
    });
    expect((await cli(['notifications', 'failed', '--shop', 'loja-dados'])).stdout).toContain(
      `finish-${result.checkout_id}  shop loja-dados  finish  service 1003`,
    );
    // Retrying another shop's moves nothing; this shop's, once the platform takes it, delivers.
    expect(
      await cli(['notifications', 'retry', `finish-${result.checkout_id}`, '--shop', 'default']),
    ).toMatchObject({ code: 1 });
    expect(await cli(['notifications', 'retry', '--all', '--shop', 'default'])).toMatchObject({
      code: 0,
      stdout: 'retrying 0 failed deliveries of shop default\n',
    });
    h.simulator.faults.clear();
    expect(await cli(['notifications', 'retry', '--all', '--shop', 'loja-dados'])).toMatchObject({
      code: 0,
      stdout: 'retrying 1 failed deliveries of shop loja-dados\n',
    });
    await eventually(() =>
      h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1003),
    );

    // The paid service reaches the ERP's webhook as the shop's: named, and signed with it.
    const delivered = await eventually(() => erp.accepted(1003).at(-1));
    expect(delivered).toMatchObject({
      verified: true,
      shop: 'loja-dados',
      shopHeader: 'loja-dados',
    });
    expect(delivered.signature).toMatch(/^t=\d+,shop=loja-dados,v1=[0-9a-f]{64}$/);

    // sync --once into a folder: the shop's files in a folder of its own, the env shop's as
    // before, each pass with its own account and ledger.
    const exportDir = path.join(dir, 'export');
    const sink = { ERP_SINK: 'directory', ERP_EXPORT_DIR: exportDir, SYNC_STATUSES: '4,6' };
    const shopPass = await cli(
      ['sync', '--once', '--shop', 'loja-dados', '--format', 'json'],
      sink,
    );
    expect(shopPass).toMatchObject({ code: 0 });
    const shopCounts = JSON.parse(shopPass.stdout) as { delivered: number };
    expect(shopCounts.delivered).toBeGreaterThan(0);
    const shopFiles = readdirSync(path.join(exportDir, 'loja-dados'));
    expect(shopFiles).toHaveLength(shopCounts.delivered);
    expect(shopFiles.every((name) => /^\d+\.json$/.test(name))).toBe(true);
    expect(existsSync(exportDir) && readdirSync(exportDir)).toEqual(['loja-dados']);
    const envPass = await cli(['sync', '--once', '--format', 'json'], sink);
    expect(envPass).toMatchObject({ code: 0 });
    const envFiles = readdirSync(exportDir).filter((name) => name.endsWith('.json'));
    // Each pass with its own ledger: service 1003 had reached the ERP as the shop's (paid, by the
    // webhook), so the shop's pass skipped it; the env shop's ledger never had it.
    expect(shopFiles).not.toContain('1003.json');
    expect(envFiles.sort()).toEqual([...shopFiles, '1003.json'].sort());
    expect((JSON.parse(envPass.stdout) as { delivered: number }).delivered).toBe(
      shopCounts.delivered + 1,
    );
  });
});
