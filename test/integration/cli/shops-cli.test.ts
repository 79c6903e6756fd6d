import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCliCaptured } from '../../support/cli';
import { startHarness, type Harness } from '../../support/harness';

/** `connector shops ...` against a real Redis and the simulator: good and bad input for each verb. */
describe('connector shops', () => {
  let h: Harness;
  let env: Record<string, string>;
  const dir = mkdtempSync(path.join(tmpdir(), 'shops-cli-'));
  const file = (name: string, body: unknown) => {
    const at = path.join(dir, name);
    writeFileSync(at, JSON.stringify(body));
    return at;
  };
  const platform = {
    email: 'cli-shop@shops.example.com',
    password: `pw-${randomBytes(6).toString('hex')}`,
    apiKey: `key-${randomBytes(6).toString('hex')}`,
  };

  beforeAll(async () => {
    h = await startHarness();
    h.simulator.state.addAccount(platform);
    env = {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      PLATFORM_BASE_URL: h.platformUrl,
      SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      PUBLIC_URL: 'https://connector.example.com',
      USER: 'ana',
    };
  });
  afterAll(async () => {
    await h.stop();
  });

  it('walks a shop through every verb, and refuses what is wrong', async () => {
    const cli = (...args: string[]) => runCliCaptured(['shops', ...args], env);
    const document = { name: 'Loja CLI', platform, provider: { name: 'sandbox' } };

    // Bad input: no keyring (78), unknown field (2), a file that is not JSON (2), another id (2).
    const { SHOP_SECRET_KEYS: _keys, ...withoutKeys } = env;
    const noKeys = await runCliCaptured(
      ['shops', 'add', 'loja-cli', '--file', file('ok.json', document)],
      withoutKeys,
    );
    expect(noKeys).toMatchObject({ code: 78 });
    expect(noKeys.stderr).toContain('SHOP_SECRET_KEYS: is required');
    const unknownField = await cli(
      'add',
      'loja-cli',
      '--file',
      file('bad.json', { ...document, extra: 1 }),
    );
    expect(unknownField).toMatchObject({ code: 2 });
    expect(unknownField.stderr).toContain('extra: is not a field of a shop document');
    writeFileSync(path.join(dir, 'broken.json'), '{');
    expect(await cli('add', 'loja-cli', '--file', path.join(dir, 'broken.json'))).toMatchObject({
      code: 2,
    });
    expect(
      await cli('add', 'loja-cli', '--file', file('other.json', { ...document, id: 'x-y' })),
    ).toMatchObject({
      code: 2,
    });
    const wrongAccount = await cli(
      'add',
      'loja-cli',
      '--file',
      file('wrong.json', { ...document, platform: { ...platform, password: 'not-it' } }),
    );
    expect(wrongAccount).toMatchObject({ code: 1 });
    expect(wrongAccount.stderr).toContain('SHOP_CREDENTIALS_REJECTED');

    // add prints the route, its token once, and the webhook URL.
    const added = await cli('add', 'loja-cli', '--file', file('ok.json', document));
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toContain(
      'checkout route: https://connector.example.com/shops/loja-cli/checkout',
    );
    expect(added.stdout).toContain(
      'webhook URL:    https://connector.example.com/webhooks/sandbox/loja-cli',
    );
    const token = /route token: +(\S+)/.exec(added.stdout)?.[1] ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await cli('add', 'loja-cli', '--file', file('ok.json', document))).stderr).toContain(
      'SHOP_EXISTS',
    );

    const listed = await cli('list');
    expect(listed.stdout).toMatch(
      /loja-cli +enabled +sandbox +cli-shop@shops.example.com +Loja CLI/,
    );
    const json = JSON.parse((await cli('list', '--format', 'json')).stdout) as Array<{
      id: string;
    }>;
    expect(json.map((shop) => shop.id)).toEqual(['loja-cli']);
    // show: a field a line by default, the same fields as JSON with --format json.
    const shown = await cli('show', 'loja-cli');
    expect(shown.stdout).toMatch(/^id +loja-cli$/m);
    expect(shown.stdout).toMatch(/^name +Loja CLI$/m);
    expect(shown.stdout).toMatch(/^provider\.name +sandbox$/m);
    expect(shown.stdout).toMatch(/^platform\.email +cli-shop@shops\.example\.com$/m);
    expect(shown.stdout).toMatch(
      /^checkout_route\.url +https:\/\/connector\.example\.com\/shops\/loja-cli\/checkout$/m,
    );
    const shownJson = await cli('show', 'loja-cli', '--format', 'json');
    expect(JSON.parse(shownJson.stdout)).toMatchObject({
      id: 'loja-cli',
      name: 'Loja CLI',
      provider: { name: 'sandbox' },
    });
    for (const output of [listed.stdout, shown.stdout, shownJson.stdout])
      for (const secret of [platform.password, platform.apiKey, token])
        expect(output).not.toContain(secret);
    expect(await cli('show', 'nope-shop')).toMatchObject({ code: 1 });

    expect(
      await cli('update', 'loja-cli', '--file', file('rename.json', { name: 'Loja Nova' })),
    ).toMatchObject({ code: 0 });
    expect(await cli('update', 'loja-cli', '--file', file('empty.json', {}))).toMatchObject({
      code: 2,
    });
    expect(await cli('disable', 'loja-cli')).toMatchObject({
      code: 0,
      stdout: 'shop loja-cli disabled\n',
    });
    expect(await cli('enable', 'loja-cli')).toMatchObject({
      code: 0,
      stdout: 'shop loja-cli enabled\n',
    });
    const rotated = await cli('rotate-token', 'loja-cli');
    expect(rotated.stdout).toMatch(/route token: +[A-Za-z0-9_-]{43}\n/);
    expect(rotated.stdout).not.toContain(token);
    expect(await cli('verify', 'loja-cli')).toMatchObject({ code: 0 });

    const audit = await cli('audit', 'loja-cli');
    expect(
      audit.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/ +/)[1]),
    ).toEqual(['token-rotated', 'enabled', 'disabled', 'updated', 'added']);
    expect(audit.stdout).toContain('cli:ana');

    expect(await cli('remove', 'loja-cli')).toMatchObject({
      code: 0,
      stdout: 'removed shop loja-cli\n',
    });
    expect(await cli('remove', 'loja-cli')).toMatchObject({ code: 1 });
    expect((await cli('list')).stdout).toContain('no shops in the registry');
    expect((await cli('new-key', 'k2')).stdout).toMatch(/^k2:[A-Za-z0-9+/]{43}=\n$/);
  });

  it("lists the env shop of the command's environment first, with its name", async () => {
    const withEnvShop = {
      ...env,
      PLATFORM_EMAIL: 'env-shop@shops.example.com',
      SHOP_NAME: 'Móveis do Ambiente',
      PAYMENT_PROVIDER: 'sandbox',
    };
    const document = { name: 'Loja Registro', platform, provider: { name: 'sandbox' } };
    const add = ['shops', 'add', 'loja-registro', '--file', file('registro.json', document)];
    expect(await runCliCaptured(add, env)).toMatchObject({ code: 0 });
    const listed = await runCliCaptured(['shops', 'list'], withEnvShop);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SHOP +STATE +PROVIDER +PLATFORM ACCOUNT +NAME$/);
    expect(lines[1]).toMatch(
      /^default +env +sandbox +env-shop@shops\.example\.com +Móveis do Ambiente$/,
    );
    expect(lines[2]).toMatch(/^loja-registro +enabled +sandbox/);
    const json = JSON.parse(
      (await runCliCaptured(['shops', 'list', '--format', 'json'], withEnvShop)).stdout,
    ) as Array<{ id: string; name?: string; source?: string }>;
    expect(json[0]).toEqual({
      id: 'default',
      name: 'Móveis do Ambiente',
      source: 'environment',
      provider: { name: 'sandbox' },
      platform: { email: 'env-shop@shops.example.com' },
    });
    expect(json.map((shop) => shop.id)).toEqual(['default', 'loja-registro']);
    // Without PLATFORM_EMAIL there is no env shop to list.
    const registryOnly = await runCliCaptured(['shops', 'list'], env);
    expect(registryOnly.stdout).not.toMatch(/^default /m);
    expect(await runCliCaptured(['shops', 'remove', 'loja-registro'], env)).toMatchObject({
      code: 0,
    });
  });

  it('asks only for the variables a verb uses: reading the registry needs no platform', async () => {
    const cli = (variables: Record<string, string>, ...args: string[]) =>
      runCliCaptured(['shops', ...args], variables);
    const document = { name: 'Loja Leitura', platform, provider: { name: 'sandbox' } };
    expect(
      await cli(env, 'add', 'loja-leitura', '--file', file('leitura.json', document)),
    ).toMatchObject({ code: 0 });
    const { PLATFORM_BASE_URL: _host, SHOP_SECRET_KEYS: _keys, ...readOnly } = env;
    const listed = await cli(readOnly, 'list');
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.stdout).toContain('loja-leitura');
    expect(await cli(readOnly, 'show', 'loja-leitura')).toMatchObject({ code: 0 });
    expect(await cli(readOnly, 'audit', 'loja-leitura')).toMatchObject({ code: 0 });
    // A verb that checks credentials with the platform says which variable it lacks.
    const { PLATFORM_BASE_URL: _h, ...noPlatform } = env;
    const verify = await cli(noPlatform, 'verify', 'loja-leitura');
    expect(verify.code).toBe(78);
    expect(verify.stderr).toMatch(/PLATFORM_BASE_URL: is required/);
    // A change of name or site calls no one: the keyring, not the platform. New credentials
    // are checked with the platform first, so they need it.
    const renamed = await cli(
      noPlatform,
      'update',
      'loja-leitura',
      '--file',
      file('site.json', { name: 'Loja Lida', siteUrl: 'https://lida.example' }),
    );
    expect(renamed).toMatchObject({ code: 0, stdout: 'updated shop loja-leitura\n' });
    const newAccount = await cli(
      noPlatform,
      'update',
      'loja-leitura',
      '--file',
      file('account.json', { platform: { password: 'another-one' } }),
    );
    expect(newAccount.code).toBe(78);
    expect(newAccount.stderr).toMatch(/PLATFORM_BASE_URL: is required/);
    expect(await cli(env, 'remove', 'loja-leitura')).toMatchObject({ code: 0 });
  });
});
