import { runCliCaptured } from '../../support/cli';
import { eventually, ROUTE_TOKEN, startHarness, type Harness } from '../../support/harness';

describe('connector checkout start', () => {
  let h: Harness;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness();
    env = {
      REDIS_URL: h.redis.url,
      QUEUE_PREFIX: h.prefix,
      CHECKOUT_ROUTE_TOKEN: ROUTE_TOKEN,
      PUBLIC_URL: h.url,
    };
  });
  afterAll(() => h.stop());

  const run = (args: string[], extraEnv: Record<string, string> = {}) =>
    runCliCaptured(['checkout', 'start', ...args], { ...env, ...extraEnv });

  it('asks the connector for a checkout and prints its URL, the one the platform got', async () => {
    const result = await run(['1001', '--wait', '10', '--format', 'json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({
      service_id: 1001,
      checkout_id: expect.stringMatching(/^chk_/),
      status: 'accepted',
      state: expect.stringMatching(/^(url_sent|requested)$/),
    });
    const platformGot = await eventually(() => h.simulator.checkoutUrlFor(1001));
    expect(printed.checkout_url).toBe(platformGot);
  });

  it('prints the checkout id at once without --wait, against the --url given', async () => {
    const result = await run(['1002', '--url', `${h.url}/`], { PUBLIC_URL: 'http://127.0.0.1:9' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^checkout chk_[A-Za-z0-9]+ accepted for service 1002\n$/);
    await eventually(() => h.simulator.checkoutUrlFor(1002));
  });

  it('reports a checkout that could not be made, with the reason', async () => {
    const result = await run(['999999', '--wait', '10']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the checkout is failed (service not found)');
  });

  it('says why the connector refused, never echoing the token', async () => {
    const wrong = 'wrong-token-0123456789';
    const result = await run(['1003'], { CHECKOUT_ROUTE_TOKEN: wrong });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: checkout refused: .*\(UNAUTHORIZED\)\n$/);
    expect(result.stderr).not.toContain(wrong);
  });

  it('fails clearly when the connector cannot be reached', async () => {
    const result = await run(['1003', '--url', 'http://127.0.0.1:9']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'cannot reach the connector at http://127.0.0.1:9/checkout: ECONNREFUSED',
    );
  });

  it('exits 2 on a bad service id and 78 without a route token', async () => {
    expect((await run(['abc'])).code).toBe(2);
    const missing = await run(['1003'], { CHECKOUT_ROUTE_TOKEN: '' });
    expect(missing.code).toBe(78);
    expect(missing.stderr).toContain('CHECKOUT_ROUTE_TOKEN');
  });
});
