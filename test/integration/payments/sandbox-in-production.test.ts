import { PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { eventually, startHarness, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';
import { redisAndSimulator } from '../../support/platform';
import type { TestRedis } from '../../support/redis-server';
import { connectorStarted, spawnConnector } from '../../support/spawn-ts';

const NOTICE = 'Ambiente de homologação: pagamentos simulados, nenhum valor é cobrado.';

describe('the sandbox under NODE_ENV=production', () => {
  const shared = redisAndSimulator();
  let redis: TestRedis;
  let simulator: PlatformSimulator;
  beforeAll(() => {
    ({ redis, simulator } = shared);
  });

  it('refuses to start, exit 78, naming PAYMENT_PROVIDER and the way out', async () => {
    const proc = spawnConnector(redis.url, simulator.url, { SANDBOX_IN_PRODUCTION: '' });
    expect(await proc.exited).toBe(78);
    expect(proc.stderr().trim().split('\n')).toEqual([
      'config error: PAYMENT_PROVIDER: the sandbox takes no real money and refuses NODE_ENV=production; choose a real provider, or set SANDBOX_IN_PRODUCTION=true on purpose for a staging platform',
    ]);
    expect(proc.stdout()).toBe('');
  });

  it('refuses a real provider without its variables, exit 78 naming each', async () => {
    const stripe = spawnConnector(redis.url, simulator.url, { PAYMENT_PROVIDER: 'stripe' });
    expect(await stripe.exited).toBe(78);
    expect(stripe.stderr().trim().split('\n')).toEqual([
      'config error: STRIPE_SECRET_KEY: is required with PAYMENT_PROVIDER=stripe',
      'config error: STRIPE_WEBHOOK_SECRET: is required with PAYMENT_PROVIDER=stripe',
    ]);
    const mp = spawnConnector(redis.url, simulator.url, {
      PAYMENT_PROVIDER: 'mercadopago',
      MERCADOPAGO_ACCESS_TOKEN: 'TEST-123-abc',
    });
    expect(await mp.exited).toBe(78);
    expect(mp.stderr().trim()).toBe(
      'config error: MERCADOPAGO_WEBHOOK_SECRET: is required with PAYMENT_PROVIDER=mercadopago',
    );
  });

  it('starts with SANDBOX_IN_PRODUCTION=true, warning in the log', async () => {
    const proc = spawnConnector(redis.url, simulator.url, { SANDBOX_IN_PRODUCTION: 'true' });
    try {
      await connectorStarted(proc);
      const warning = proc
        .stdout()
        .split('\n')
        .find((line) => line.includes('the sandbox provider runs in production'));
      expect(JSON.parse(warning ?? '{}')).toMatchObject({ level: 'warn' });
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  });

  describe('on a staging platform', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        env: { NODE_ENV: 'production', SANDBOX_IN_PRODUCTION: 'true' },
        redis,
      });
    });
    afterAll(() => h.stop());

    it('says so on every page the customer sees', async () => {
      await h.simulator.requestCheckout(1001);
      const url = await eventually(() => h.simulator.checkoutUrlFor(1001), WAIT_DEADLINE_MS, 'url');
      expect(await (await fetch(url)).text()).toContain(NOTICE);
      const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
      const returned = await fetch(paid.headers.get('location') ?? '');
      expect(await returned.text()).toContain(NOTICE);
      const unknown = await fetch(`${h.url}/sandbox/checkout/chk_000000000000000000000000`);
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain(NOTICE);
    });
  });

  it('shows no notice in development', async () => {
    const h = await startHarness({ redis });
    try {
      await h.simulator.requestCheckout(1002);
      const url = await eventually(() => h.simulator.checkoutUrlFor(1002), WAIT_DEADLINE_MS, 'url');
      expect(await (await fetch(url)).text()).not.toContain('homologação');
    } finally {
      await h.stop();
    }
  });
});
