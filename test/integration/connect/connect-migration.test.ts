import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { runCliCaptured } from '../../support/cli';
import { addSandboxShop, adminApi, Browser, vendorEnv } from '../../support/connect-shops';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';
import { eventually, startHarness, type Harness } from '../../support/harness';

/*
 * The upgrade with connections under way (issue 43; docs/operating.md, "Upgrading"): the previous
 * release kept them under `{P:connect}:state:<name>`, a Stripe account id in two of the names and
 * a PKCE verifier in plain text. `connector migrate` moves the pending accounts to names without
 * an id, so an onboarding in flight still completes, and drops the old states, whose callbacks
 * then get the "Link inválido" page (never a 500) while their links still work.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

describe('connector migrate: connections under way', () => {
  let mp: FakeMercadoPago;
  let stripe: FakeStripe;
  let h: Harness;
  let redis: Redis;

  const admin = adminApi(() => h, ADMIN_TOKEN);
  const tag = () => `{${h.prefix}:connect}`;

  async function linkFor(shop: string, provider: string): Promise<{ url: string; key: string }> {
    const made = await admin(`/shops/${shop}/connect`, {
      method: 'POST',
      body: JSON.stringify({ provider }),
    });
    expect(made.status).toBe(201);
    const { url } = (await made.json()) as { url: string };
    const token = url.split('/').at(-1) ?? '';
    return { url, key: createHash('sha256').update(token).digest('hex') };
  }

  /** The connect keys as they stand, less the links (whose layout did not change). */
  async function connectKeys(): Promise<string[]> {
    const keys = await redis.keys(`${tag()}:*`);
    return keys.filter((key) => !key.startsWith(`${tag()}:link:`)).sort();
  }

  beforeAll(async () => {
    mp = new FakeMercadoPago();
    stripe = new FakeStripe();
    await Promise.all([mp.start(), stripe.start()]);
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN,
        SHOP_REFRESH_MS: '200',
        ...vendorEnv({ mp, stripe }),
        PROVIDER_API_ORIGINS: [mp.url, stripe.url].join(','),
      },
    });
    stripe.connectWebhookUrl = `${h.url}/webhooks/stripe-connect`;
    redis = new Redis(h.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await h?.stop();
    await Promise.all([mp?.stop(), stripe?.stop()]);
  });

  it('moves the pending Stripe accounts, drops the old states, and the work in flight completes', async () => {
    await addSandboxShop(h, admin, 'freijo');
    await addSandboxShop(h, admin, 'louro');
    const stripeLink = await linkFor('freijo', 'stripe');
    const mpLink = await linkFor('louro', 'mercadopago');
    // An onboarding made by the owner (the account exists at Stripe), then its keys written as
    // the previous release wrote them (src/shop-registry/stripe-onboarding.ts before issue 43).
    const owner = new Browser();
    const onboarding = (
      await owner.fetch(`${stripeLink.url}/start`, { method: 'POST' })
    ).headers.get('location');
    const account =
      stripe.accountLinks.get(new URL(onboarding ?? '').pathname.split('/').at(-1) ?? '')
        ?.account ?? '';
    expect(account).toMatch(/^acct_/);
    for (const key of await connectKeys()) await redis.del(key);
    const pending = JSON.stringify({ link: stripeLink.key, secret: account, shop: 'freijo' });
    const ttl = 6 * 86_400_000;
    const oldStripeState = randomBytes(24).toString('base64url');
    const oldMpState = randomBytes(24).toString('base64url');
    await redis.set(`${tag()}:state:link-account:${stripeLink.key}`, pending, 'PX', ttl);
    await redis.set(`${tag()}:state:account:${account}`, pending, 'PX', ttl);
    await redis.set(`${tag()}:state:${oldStripeState}`, pending, 'PX', ttl);
    await redis.set(
      `${tag()}:state:${oldMpState}`,
      JSON.stringify({ link: mpLink.key, secret: randomBytes(32).toString('base64url') }),
      'PX',
      1_800_000,
    );
    const env = { REDIS_URL: h.redis.url, QUEUE_PREFIX: h.prefix };

    const dry = await runCliCaptured(['migrate', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      'would move 2 pending provider accounts of connections under way, and would drop 2 states',
    );
    expect(await connectKeys()).toHaveLength(4);
    const run = await runCliCaptured(['migrate'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('moved 2 pending provider accounts');
    expect(run.stdout).toContain('dropped 2 states');
    const keys = await connectKeys();
    // Where the current release looks for them: the account by its id's hash, the link's account.
    const hash = createHash('sha256').update(account).digest('hex');
    expect(keys).toEqual(
      [`${tag()}:account:stripe:${hash}`, `${tag()}:link-account:${stripeLink.key}`].sort(),
    );
    expect(keys.filter((key) => key.includes(account) || key.includes(':state:'))).toEqual([]);
    // Their times to live were kept.
    for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(5 * 86_400_000);
    const again = await runCliCaptured(['migrate'], env);
    expect(again.stdout).toMatch(/^nothing to migrate/);

    // The old states' callbacks: the "Link inválido" page, never a 500; their links still work.
    const oldCallback = await owner.fetch(
      `${h.url}/connect/mercadopago/callback?code=TG-1&state=${oldMpState}`,
    );
    expect(oldCallback.status).toBe(404);
    expect(await oldCallback.text()).toContain('Link inválido');
    const oldReturn = await owner.fetch(`${h.url}/connect/stripe/return?state=${oldStripeState}`);
    expect(oldReturn.status).toBe(404);
    expect((await fetch(mpLink.url)).status).toBe(200);
    // Stripe enables charges: its event finds the migrated pending account and connects the shop
    // (nothing was pressed since the migration, so only the migrated keys can lead there).
    await stripe.completeOnboarding(account);
    const view = await eventually(async () => {
      const shown = (await (await admin('/shops/freijo')).json()) as {
        provider: { connection?: string; account?: string };
      };
      return shown.provider.connection === 'connect' ? shown : undefined;
    });
    expect(view.provider.account).toBe(account);
  });
});
