import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';
import { startHarness, type Harness } from '../../support/harness';
import { storeShopAsBefore } from '../../support/legacy-shop';
import { newPlatformAccount } from '../../support/registry-shop';

/*
 * Names are text (CONTRACT "The trust boundary of a shop"): a name with control characters is
 * refused by the admin API and the CLI, naming `name`; one stored before the rule is printed
 * escaped, so it cannot rewrite an operator's terminal.
 */
const KEY = `k1:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
/** Clears the screen, sets the window title, turns text red, and reverses what follows. */
const HOSTILE = 'Loja\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202eonretni\u202c\u200b';
/** What a terminal would act upon: C0 (but the line feed), DEL, C1, bidi and zero-width. */
// eslint-disable-next-line no-control-regex -- the very characters this test looks for
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

describe('shop names', () => {
  let h: Harness;
  let cliEnv: Record<string, string>;
  const platformOf = (shop: string) => newPlatformAccount(h, shop);
  const admin = (path: string, method: string, body: unknown) =>
    fetch(`${h.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const fieldsOf = async (response: Response) =>
    ((await response.json()) as { error: { details: Array<{ field: string }> } }).error.details.map(
      (detail) => detail.field,
    );

  beforeAll(async () => {
    h = await startHarness({ env: { SHOP_SECRET_KEYS: KEY, ADMIN_TOKEN } });
    cliEnv = {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      PLATFORM_BASE_URL: h.platformUrl,
      SHOP_SECRET_KEYS: KEY,
      USER: 'ana',
    };
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('refuses control characters in a name, by the admin API and the CLI, naming the field', async () => {
    const document = {
      name: HOSTILE,
      platform: platformOf('nomes-a'),
      provider: { name: 'sandbox' },
    };
    const added = await admin('/shops', 'POST', { id: 'nomes-a', ...document });
    expect(added.status).toBe(400);
    expect(await fieldsOf(added)).toEqual(['name']);

    const good = await admin('/shops', 'POST', { id: 'nomes-a', ...document, name: 'Loja A' });
    expect(good.status).toBe(201);
    const renamed = await admin('/shops/nomes-a', 'PATCH', { name: 'Loja\u202eA' });
    expect(renamed.status).toBe(400);
    expect(await fieldsOf(renamed)).toEqual(['name']);

    const file = path.join(mkdtempSync(path.join(tmpdir(), 'shop-names-')), 'shop.json');
    writeFileSync(file, JSON.stringify({ ...document, platform: platformOf('nomes-b') }));
    const cli = await runCliCaptured(['shops', 'add', 'nomes-b', '--file', file], cliEnv);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('name: must be printable');
  });

  it('prints a name stored before the rule escaped, in the table and in JSON', async () => {
    await storeShopAsBefore(h, KEY, {
      id: 'nomes-antiga',
      name: HOSTILE,
      platform: platformOf('nomes-antiga'),
      provider: { name: 'sandbox' },
    });
    const list = await runCliCaptured(['shops', 'list'], cliEnv);
    const json = await runCliCaptured(['shops', 'list', '--format', 'json'], cliEnv);
    const show = await runCliCaptured(
      ['shops', 'show', 'nomes-antiga', '--format', 'json'],
      cliEnv,
    );
    const shown = await runCliCaptured(['shops', 'show', 'nomes-antiga'], cliEnv);
    for (const run of [list, json, show, shown]) {
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(RAW);
    }
    expect(list.stdout).toContain('Loja\\u001b[2J');
    // The JSON still reads back to the name as stored.
    expect((JSON.parse(show.stdout) as { name: string }).name).toBe(HOSTILE);
  });

  it("prints the platform's data escaped too: every line of the CLI goes through one writer", async () => {
    h.simulator.state.override(1007, { internal_code: HOSTILE });
    const env = {
      PLATFORM_BASE_URL: h.platformUrl,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    };
    const table = await runCliCaptured(['services', 'list', '--limit', '10'], env);
    const ndjson = await runCliCaptured(['services', 'list', '--format', 'ndjson'], env);
    for (const run of [table, ndjson]) {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Loja\\u001b[2J');
      expect(run.stdout).not.toMatch(RAW);
    }
    const item = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; internal_code: string })
      .find((service) => service.id === 1007);
    expect(item?.internal_code).toBe(HOSTILE);
  });
});
