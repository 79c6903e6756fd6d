import { randomBytes } from 'node:crypto';
import { addSandboxShop, adminApi, ASAAS_COMPANY, Browser } from './connect-shops';
import { FakeAsaas } from './fake-asaas';
import { FakeMercadoPago } from './fake-mercadopago';
import { startHarness, type Harness } from './harness';
import { startTestRedis, type TestRedis } from './redis-server';

/*
 * The worlds the connect suites of one provider share, each split by concern over a few files
 * (`<name>.test.ts`, `.errors.test.ts`, `.security.test.ts`): the loopback fake, the connector
 * aimed at it, and the helpers that drive it. Call one at the top of a describe: it starts the
 * world before the file's tests and stops it after them; read its fakes and harness inside tests.
 */

/** What `mercadoPagoConnectWorld` serves a suite. */
export interface MercadoPagoConnectWorld {
  readonly redis: TestRedis;
  readonly mp: FakeMercadoPago;
  readonly h: Harness;
  /** The admin API, with the deployment's token. */
  readonly admin: ReturnType<typeof adminApi>;
  /** The owners' browser: the link's button and the provider's redirect back, with its cookie. */
  readonly owner: Browser;
  /** Adds a shop on the sandbox, to be connected; answers its route token and account. */
  addShop(id: string): ReturnType<typeof addSandboxShop>;
  /** A link for the shop, followed through Mercado Pago's consent to the callback's page. */
  connect(
    shop: string,
    userId?: number,
  ): Promise<{
    link: { url: string; expires_at: string };
    html: string;
    authorize: string;
    callback: string;
    done: Response;
    doneHtml: string;
  }>;
  /** The shop as the admin API shows it. */
  shopView(shop: string): Promise<Record<string, unknown> & { provider: Record<string, unknown> }>;
  /** The environment a CLI beside the deployment runs with. */
  cliEnv(): Record<string, string>;
}

/**
 * Mercado Pago's OAuth connect (CONTRACT "Connecting a shop's provider account"): a loopback fake
 * written from its OAuth reference, and a connector with the vendor's application, a vendor fee of
 * 2.5 % plus R$ 0,50, and short refresh and reconcile intervals.
 */
export function mercadoPagoConnectWorld(): MercadoPagoConnectWorld {
  const keys = `k1:${randomBytes(32).toString('base64')}`;
  const adminToken = `admin-${randomBytes(24).toString('hex')}`;
  let started: { redis: TestRedis; mp: FakeMercadoPago; h: Harness } | undefined;
  const get = () => {
    if (!started) throw new Error('the Mercado Pago world is not started outside a test');
    return started;
  };

  beforeAll(async () => {
    const redis = await startTestRedis();
    const mp = new FakeMercadoPago();
    await mp.start();
    const h = await startHarness({
      redis,
      env: {
        SHOP_SECRET_KEYS: keys,
        ADMIN_TOKEN: adminToken,
        SHOP_REFRESH_MS: '200',
        MERCADOPAGO_CLIENT_ID: mp.application.clientId,
        MERCADOPAGO_CLIENT_SECRET: mp.application.clientSecret,
        MERCADOPAGO_WEBHOOK_SECRET: mp.webhookSecret,
        MERCADOPAGO_AUTH_URL: mp.url,
        MERCADOPAGO_API_URL: mp.url,
        PROVIDER_API_ORIGINS: mp.url,
        VENDOR_FEE_PERCENT: '2.5',
        VENDOR_FEE_FIXED: '0.50',
        RECONCILE_INTERVAL_MS: '500',
      },
      start: { produceBackoffMs: 50 },
    });
    started = { redis, mp, h };
  });
  afterAll(async () => {
    await started?.h.stop();
    await started?.mp.stop();
    await started?.redis.close();
  });

  const admin = adminApi(() => get().h, adminToken);
  const owner = new Browser();
  return {
    get redis() {
      return get().redis;
    },
    get mp() {
      return get().mp;
    },
    get h() {
      return get().h;
    },
    admin,
    owner,
    addShop: (id) => addSandboxShop(get().h, admin, id, `Marcenaria ${id}`),
    async connect(shop, userId) {
      const made = await admin(`/shops/${shop}/connect`, {
        method: 'POST',
        body: JSON.stringify({ provider: 'mercadopago' }),
      });
      expect(made.status).toBe(201);
      const link = (await made.json()) as { url: string; expires_at: string };
      const page = await fetch(link.url);
      expect(page.status).toBe(200);
      const html = await page.text();
      const start = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
      expect(start.status).toBe(303);
      const authorize = start.headers.get('location') ?? '';
      const callback = get().mp.approve(authorize, userId === undefined ? {} : { userId });
      const done = await owner.fetch(callback, { redirect: 'manual' });
      return { link, html, authorize, callback, done, doneHtml: await done.text() };
    },
    shopView: async (shop) =>
      (await (await admin(`/shops/${shop}`)).json()) as Record<string, unknown> & {
        provider: Record<string, unknown>;
      },
    cliEnv() {
      const { redis, mp, h } = get();
      return {
        REDIS_URL: redis.url,
        QUEUE_PREFIX: h.prefix,
        SHOP_SECRET_KEYS: keys,
        PUBLIC_URL: h.url,
        MERCADOPAGO_CLIENT_ID: mp.application.clientId,
        MERCADOPAGO_CLIENT_SECRET: mp.application.clientSecret,
        MERCADOPAGO_WEBHOOK_SECRET: mp.webhookSecret,
        MERCADOPAGO_API_URL: mp.url,
        PROVIDER_API_ORIGINS: mp.url,
        PLATFORM_BASE_URL: h.platformUrl,
      };
    },
  };
}

/** An owner's data as Asaas asks it for a person: a valid CPF's check digits, a birth date. */
export const ASAAS_PERSON = {
  ...ASAAS_COMPANY,
  name: 'Ana Souza',
  cpfCnpj: '529.982.247-25',
  companyType: '',
  birthDate: '1980-05-01',
};

/**
 * The birth date of who turns `years` old on Brasília's calendar `daysFromToday` days from now.
 * No one born in a common year turns it on a 29 February: then the 28th for today (of age
 * already) and 1 March for a day to come (not yet).
 */
export function bornYearsBefore(years: number, daysFromToday = 0): string {
  const day = new Date(Date.now() + daysFromToday * 86_400_000).toLocaleDateString('en-CA', {
    timeZone: 'America/Sao_Paulo',
  });
  const [born, monthDay] = [Number(day.slice(0, 4)) - years, day.slice(5)];
  const leap = (born % 4 === 0 && born % 100 !== 0) || born % 400 === 0;
  if (monthDay !== '02-29' || leap) return `${born}-${monthDay}`;
  return `${born}-${daysFromToday > 0 ? '03-01' : '02-28'}`;
}

/** What `asaasConnectWorld` serves a suite. */
export interface AsaasConnectWorld {
  readonly asaas: FakeAsaas;
  readonly h: Harness;
  /** The admin API, with the deployment's token. */
  readonly admin: ReturnType<typeof adminApi>;
  /** Adds a shop on the sandbox, to be connected; answers its route token and account. */
  addShop(id: string): ReturnType<typeof addSandboxShop>;
  /** A new Asaas link for the shop (the admin API must answer 201): its URL. */
  linkFor(shop: string): Promise<string>;
  /** The owner's form, posted under the link. */
  submit(url: string, form: Record<string, string>): Promise<Response>;
}

/**
 * Asaas's subaccounts (CONTRACT "Connecting a shop's provider account"): a loopback Asaas written
 * from its reference, and a connector with the vendor's root key, a vendor fee of 2 %, and short
 * refresh and reconcile intervals.
 */
export function asaasConnectWorld(): AsaasConnectWorld {
  const adminToken = `admin-${randomBytes(24).toString('hex')}`;
  let started: { asaas: FakeAsaas; h: Harness } | undefined;
  const get = () => {
    if (!started) throw new Error('the Asaas world is not started outside a test');
    return started;
  };

  beforeAll(async () => {
    const asaas = new FakeAsaas();
    await asaas.start();
    const h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN: adminToken,
        SHOP_REFRESH_MS: '200',
        ASAAS_ROOT_API_KEY: asaas.rootApiKey,
        ASAAS_API_URL: `${asaas.url}/v3`,
        PROVIDER_API_ORIGINS: asaas.url,
        VENDOR_FEE_PERCENT: '2',
        RECONCILE_INTERVAL_MS: '500',
      },
      start: { produceBackoffMs: 50 },
    });
    started = { asaas, h };
  });
  afterAll(async () => {
    await started?.h.stop();
    await started?.asaas.stop();
  });

  const admin = adminApi(() => get().h, adminToken);
  return {
    get asaas() {
      return get().asaas;
    },
    get h() {
      return get().h;
    },
    admin,
    addShop: (id) => addSandboxShop(get().h, admin, id),
    async linkFor(shop) {
      const made = await admin(`/shops/${shop}/connect`, {
        method: 'POST',
        body: JSON.stringify({ provider: 'asaas' }),
      });
      expect(made.status).toBe(201);
      return ((await made.json()) as { url: string }).url;
    },
    submit: (url, form) =>
      fetch(`${url}/asaas`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      }),
  };
}
