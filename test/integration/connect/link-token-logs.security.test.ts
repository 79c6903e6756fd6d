import { randomBytes } from 'node:crypto';
import { addSandboxShop, adminApi } from '../../support/connect-shops';
import { FakeAsaas } from '../../support/fake-asaas';
import { startHarness, type Harness } from '../../support/harness';

/*
 * A connect link's token is the right to connect a shop's payment account (CONTRACT "Connect and
 * a provider's own endpoints, safe by construction": link tokens never in a log line). Whatever a
 * browser, a proxy or an attacker asks under the link (the page, a method the route does not
 * serve, a path it does not have, a form too large, more requests than the limit), no line of the
 * log, at any level, holds the token: each logged path says `/connect/:token`.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

describe("a connect link's token never reaches the log", () => {
  let asaas: FakeAsaas;
  let h: Harness;
  const admin = adminApi(() => h, ADMIN_TOKEN);

  beforeAll(async () => {
    asaas = new FakeAsaas();
    await asaas.start();
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN,
        ASAAS_ROOT_API_KEY: asaas.rootApiKey,
        ASAAS_API_URL: `${asaas.url}/v3`,
        PROVIDER_API_ORIGINS: asaas.url,
        // Low enough for the test to reach it, high enough for every request before.
        RATE_LIMIT_PAGES: '12',
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await asaas?.stop();
  });

  /** A fresh link of a fresh shop: its URL and its token. */
  const newLink = async (shop: string): Promise<{ url: string; token: string }> => {
    await addSandboxShop(h, admin, shop);
    const made = await admin(`/shops/${shop}/connect`, {
      method: 'POST',
      body: JSON.stringify({ provider: 'asaas' }),
    });
    expect(made.status).toBe(201);
    const { url } = (await made.json()) as { url: string };
    const token = /\/connect\/([^/?#]+)$/.exec(url)?.[1] ?? '';
    expect(token).toHaveLength(43);
    return { url, token };
  };

  const form = (bytes: number) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `name=${'a'.repeat(bytes)}`,
  });

  it('writes /connect/:token for the page (200), a path it lacks (404), a method it refuses (405), a form too large (413) and the limit (429)', async () => {
    const { url, token } = await newLink('oficina');
    const before = h.log.text().length;

    const answers: Array<[string, number]> = [];
    const ask = async (what: string, target: string, init?: RequestInit) => {
      const response = await fetch(target, { redirect: 'manual', ...init });
      await response.arrayBuffer();
      answers.push([what, response.status]);
    };
    await ask('the page', url);
    await ask('a trailing slash', `${url}/`);
    await ask('a path under the link', `${url}/xyz`);
    await ask('GET of the button', `${url}/start`);
    await ask('PUT of the page', url, { method: 'PUT' });
    await ask("Asaas's form, too large", `${url}/asaas`, form(20_000));
    await ask("the button's form, too large", `${url}/start`, form(4_000));
    await ask('a token that does not decode', `${url}%E0%A4%A`);
    await ask('a doubled slash', url.replace('/connect/', '/connect//'));
    expect(answers).toEqual([
      ['the page', 200],
      ['a trailing slash', 404],
      ['a path under the link', 404],
      ['GET of the button', 405],
      ['PUT of the page', 405],
      ["Asaas's form, too large", 413],
      ["the button's form, too large", 413],
      ['a token that does not decode', 400],
      ['a doubled slash', 404],
    ]);
    // The pages' limit: the next requests from this address are refused.
    let status = 0;
    for (let i = 0; i < 12 && status !== 429; i++) {
      const response = await fetch(`${url}/xyz`);
      await response.arrayBuffer();
      status = response.status;
    }
    expect(status).toBe(429);

    const written = h.log.text().slice(before);
    const lines = written.split('\n').filter((line) => line.includes('/connect/'));
    // Each answer was logged, with the link's path written without its token.
    expect(lines.length).toBeGreaterThanOrEqual(answers.length + 1);
    for (const code of [200, 400, 404, 405, 413, 429]) {
      expect(lines.some((line) => line.includes(`"status":${code}`))).toBe(true);
    }
    expect(written).toContain('/connect/:token');
    expect(written).not.toContain(token);
  });
});
