import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  addSandboxShop,
  adminApi,
  ASAAS_COMPANY,
  Browser,
  vendorEnv,
} from '../../support/connect-shops';
import { FakeAsaas } from '../../support/fake-asaas';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';
import { eventually, startHarness, type Harness } from '../../support/harness';

/*
 * What a browser or a provider hands back to the connector is never trusted to say what it is
 * (CONTRACT "Connect and a provider's own endpoints, safe by construction"; issue 43, findings 1,
 * 3 and 7): each attack as it was reproduced on the previous release, against loopback fakes of
 * Mercado Pago, Stripe and Asaas written from their references.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

/** An owner's data as Asaas asks it for a company. */
const OWNER = { ...ASAAS_COMPANY, name: 'Marcenaria Cedro Ltda', email: 'dono@cedro.example' };

describe('connect states: typed, random, bound to the browser', () => {
  let mp: FakeMercadoPago;
  let stripe: FakeStripe;
  let asaas: FakeAsaas;
  let h: Harness;
  let redis: Redis;

  const admin = adminApi(() => h, ADMIN_TOKEN);
  const shopView = async (shop: string) =>
    (await (await admin(`/shops/${shop}`)).json()) as {
      provider: Record<string, unknown>;
      needs_reconnect?: unknown;
    };

  async function linkFor(shop: string, provider: string): Promise<string> {
    const made = await admin(`/shops/${shop}/connect`, {
      method: 'POST',
      body: JSON.stringify({ provider }),
    });
    expect(made.status).toBe(201);
    return ((await made.json()) as { url: string }).url;
  }

  /** The link's button pressed in `browser`: where it sends the browser. */
  async function press(url: string, browser: Browser): Promise<string> {
    const start = await browser.fetch(`${url}/start`, { method: 'POST' });
    expect(start.status).toBe(303);
    return start.headers.get('location') ?? '';
  }

  /** A Stripe onboarding started by the shop's owner: the account made, not yet connected. */
  async function stripeOnboarding(shop: string, owner: Browser) {
    const onboarding = await press(await linkFor(shop, 'stripe'), owner);
    const linkId = new URL(onboarding).pathname.split('/').at(-1) ?? '';
    const link = stripe.accountLinks.get(linkId);
    if (!link) throw new Error('no account link');
    return {
      account: link.account,
      returnUrl: link.return_url ?? '',
      refreshUrl: link.refresh_url ?? '',
    };
  }

  /** Every key of this connector, and every value of its connect keys. */
  async function connectData(): Promise<{ keys: string[]; values: string[] }> {
    const keys = await redis.keys(`*${h.prefix}*`);
    const connect = keys.filter((key) => key.startsWith(`{${h.prefix}:connect}`));
    const values: string[] = [];
    for (const key of connect) {
      if ((await redis.type(key)) === 'string') values.push((await redis.get(key)) ?? '');
    }
    return { keys, values };
  }

  beforeAll(async () => {
    mp = new FakeMercadoPago();
    stripe = new FakeStripe();
    asaas = new FakeAsaas();
    await Promise.all([mp.start(), stripe.start(), asaas.start()]);
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN,
        SHOP_REFRESH_MS: '200',
        ...vendorEnv({ mp, stripe, asaas }),
        PROVIDER_API_ORIGINS: [mp.url, stripe.url, asaas.url].join(','),
      },
    });
    stripe.connectWebhookUrl = `${h.url}/webhooks/stripe-connect`;
    redis = new Redis(h.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await h?.stop();
    await Promise.all([mp?.stop(), stripe?.stop(), asaas?.stop()]);
  });

  it("a Stripe account id named as a state opens nothing: not Stripe's refresh or return, not Mercado Pago's callback", async () => {
    await addSandboxShop(h, admin, 'ipe');
    const owner = new Browser();
    const { account } = await stripeOnboarding('ipe', owner);
    const linksBefore = stripe.accountLinks.size;
    for (const path of ['/connect/stripe/refresh', '/connect/stripe/return']) {
      const answer = await fetch(`${h.url}${path}?state=account:${account}`, {
        redirect: 'manual',
      });
      expect(answer.status).toBe(404);
      expect(await answer.text()).toContain('Link inválido');
    }
    // No new onboarding link for the victim's account.
    expect(stripe.accountLinks.size).toBe(linksBefore);

    // The attacker's own Mercado Pago seller authorizes the vendor's application, with the
    // victim's account id as the PKCE verifier and `account:<id>` as the state.
    const authorize = new URL(`${mp.url}/authorization`);
    authorize.search = new URLSearchParams({
      client_id: mp.application.clientId,
      response_type: 'code',
      platform_id: 'mp',
      redirect_uri: `${h.url}/connect/mercadopago/callback`,
      state: `account:${account}`,
      code_challenge: createHash('sha256').update(account).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const attack = await fetch(mp.approve(authorize.toString(), { userId: 4_242 }), {
      redirect: 'manual',
    });
    expect(attack.status).toBe(404);
    expect(await attack.text()).toContain('Link inválido');
    expect((await shopView('ipe')).provider).toEqual({ name: 'sandbox' });
    // Without a code, the same call deletes nothing: the owner's onboarding still completes.
    const noCode = await fetch(
      `${h.url}/connect/mercadopago/callback?state=account:${account}&error=access_denied`,
    );
    expect(noCode.status).toBe(404);
    await stripe.completeOnboarding(account);
    const view = await eventually(async () => {
      const shown = await shopView('ipe');
      return shown.provider.connection === 'connect' ? shown : undefined;
    });
    expect(view.provider.account).toBe(account);
  });

  it('a state of any other form is the Link inválido page', async () => {
    for (const state of ['', 'abc', 'x'.repeat(42), `${'y'.repeat(43)}=`, 'link-account:z']) {
      for (const path of [
        '/connect/mercadopago/callback',
        '/connect/stripe/refresh',
        '/connect/stripe/return',
      ]) {
        const answer = await fetch(`${h.url}${path}?code=TG-1&state=${encodeURIComponent(state)}`, {
          redirect: 'manual',
        });
        expect(answer.status).toBe(404);
        expect(await answer.text()).toContain('Link inválido');
      }
    }
  });

  it('no account id in a Redis key name, and the PKCE verifier is stored sealed', async () => {
    await addSandboxShop(h, admin, 'jequitiba');
    await addSandboxShop(h, admin, 'cabreuva');
    const { account } = await stripeOnboarding('jequitiba', new Browser());
    const authorize = new URL(await press(await linkFor('cabreuva', 'mercadopago'), new Browser()));
    const challenge = authorize.searchParams.get('code_challenge') ?? '';
    // A state is 32 random bytes, base64url.
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { keys, values } = await connectData();
    expect(keys.filter((key) => key.includes(account))).toEqual([]);
    expect(keys.filter((key) => key.includes('acct_'))).toEqual([]);
    // No stored value holds a string whose S256 is the challenge: the verifier is sealed.
    const verifiers = values.flatMap((value) => value.match(/[A-Za-z0-9_-]{43,128}/g) ?? []);
    expect(verifiers.length).toBeGreaterThan(0);
    expect(
      verifiers.filter(
        (candidate) => createHash('sha256').update(candidate).digest('base64url') === challenge,
      ),
    ).toEqual([]);
  });

  it('a callback in another browser than the one that pressed the button changes nothing; the right browser completes it', async () => {
    await addSandboxShop(h, admin, 'aroeira');
    const attacker = new Browser();
    const authorize = await press(await linkFor('aroeira', 'mercadopago'), attacker);
    // The cookie that binds the state to this browser.
    const [setCookie = ''] = (
      await attacker.fetch(`${await linkFor('aroeira', 'mercadopago')}/start`, { method: 'POST' })
    ).headers.getSetCookie();
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//i);
    expect(attacker.cookies(h.url).size).toBe(1);
    // The victim approves the authorization the attacker started, in the victim's own browser.
    const callback = mp.approve(authorize, { userId: 5_151 });
    const victim = new Browser();
    const refused = await victim.fetch(callback);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Abra o link no mesmo navegador');
    expect((await shopView('aroeira')).provider).toEqual({ name: 'sandbox' });
    // A browser with another connect cookie is refused the same way.
    const other = new Browser();
    await press(await linkFor('aroeira', 'mercadopago'), other);
    expect((await other.fetch(callback)).status).toBe(400);
    expect((await shopView('aroeira')).provider).toEqual({ name: 'sandbox' });
    // The browser that pressed the button still completes it, and the page names Mercado Pago.
    const done = await attacker.fetch(callback);
    expect(done.status).toBe(200);
    const page = await done.text();
    expect(page).toContain('Conta conectada');
    expect(page).toContain('Mercado Pago');
    expect((await shopView('aroeira')).provider).toMatchObject({
      name: 'mercadopago',
      connection: 'oauth',
      account: '5151',
    });
  });

  it("Stripe's return and refresh in another browser change nothing", async () => {
    await addSandboxShop(h, admin, 'guatambu');
    const owner = new Browser();
    const { account, returnUrl, refreshUrl } = await stripeOnboarding('guatambu', owner);
    const linksBefore = stripe.accountLinks.size;
    const stranger = new Browser();
    expect((await stranger.fetch(refreshUrl)).status).toBe(400);
    expect(stripe.accountLinks.size).toBe(linksBefore);
    await stripe.completeOnboarding(account);
    // Connected by Stripe's event; the owner's own return says so.
    await eventually(async () =>
      (await shopView('guatambu')).provider.connection === 'connect' ? true : undefined,
    );
    const back = await owner.fetch(returnUrl);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('Conta conectada');
  });

  it('Stripe disabling charges of a connected account marks its shop needs_reconnect', async () => {
    const { route } = await addSandboxShop(h, admin, 'canela');
    const { account } = await stripeOnboarding('canela', new Browser());
    await stripe.completeOnboarding(account);
    await eventually(async () =>
      (await shopView('canela')).provider.connection === 'connect' ? true : undefined,
    );
    await stripe.setChargesEnabled(account, false);
    const view = await eventually(async () => {
      const shown = await shopView('canela');
      return shown.needs_reconnect ? shown : undefined;
    });
    expect(view.needs_reconnect).toMatchObject({ since: expect.any(String) });
    const answer = await eventually(async () => {
      const tried = await fetch(route.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
        body: JSON.stringify({ service_id: 1001 }),
      });
      return tried.status === 503 ? tried : undefined;
    });
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
      'SHOP_NEEDS_RECONNECT',
    );
  });

  it('a link takes at most 5 refusals from Asaas an hour, then a 429 page and no call to Asaas', async () => {
    await addSandboxShop(h, admin, 'angelim-pedra');
    await addSandboxShop(h, admin, 'sapucaia');
    // An email another Asaas account has: Asaas itself refuses it.
    const taken = await admin('/shops/sapucaia/connect', {
      method: 'POST',
      body: JSON.stringify({
        provider: 'asaas',
        account: { ...OWNER, email: 'usado@cedro.example' },
      }),
    });
    expect(taken.status).toBe(201);
    const url = await linkFor('angelim-pedra', 'asaas');
    const submit = () =>
      fetch(`${url}/asaas`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...OWNER, email: 'usado@cedro.example' }).toString(),
      });
    for (let refusal = 1; refusal <= 5; refusal += 1) expect((await submit()).status).toBe(400);
    const calls = asaas.requests.length;
    const limited = await submit();
    expect(limited.status).toBe(429);
    expect(await limited.text()).toContain('lang="pt-BR"');
    expect(asaas.requests.length).toBe(calls);
  });

  it("a link's button or form pressed from another site's page is refused, with no cookie and nothing started (login CSRF)", async () => {
    await addSandboxShop(h, admin, 'peroba-do-campo');
    const url = await linkFor('peroba-do-campo', 'mercadopago');
    const authorizeBefore = mp.tokenRequests.length;
    for (const headers of <Array<Record<string, string>>>[
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const victim = new Browser();
      const pressed = await victim.fetch(`${url}/start`, { method: 'POST', headers });
      expect(pressed.status).toBe(403);
      expect(await pressed.text()).toContain('Abra o link que você recebeu');
      expect(pressed.headers.getSetCookie()).toEqual([]);
    }
    await addSandboxShop(h, admin, 'jacaranda');
    const form = await linkFor('jacaranda', 'asaas');
    const calls = asaas.requests.length;
    const posted = await fetch(`${form}/asaas`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
      body: new URLSearchParams(OWNER).toString(),
    });
    expect(posted.status).toBe(403);
    expect(asaas.requests.length).toBe(calls);
    // The link's own page, as a browser sends its form: accepted.
    const own = await new Browser().fetch(`${url}/start`, {
      method: 'POST',
      headers: { origin: new URL(h.url).origin, 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).toBe(303);
    expect(mp.tokenRequests.length).toBe(authorizeBefore);
  });

  it('a late account.updated of a disabled account marks nothing while Stripe says its charges are enabled; enabled again, the mark is cleared', async () => {
    await addSandboxShop(h, admin, 'cerejeira');
    const { account } = await stripeOnboarding('cerejeira', new Browser());
    // An event of onboarding's time, captured before Stripe enabled the charges.
    const stale = stripe.event(
      'account.updated',
      { ...stripe.accounts.get(account)!, charges_enabled: false },
      { account },
    );
    await stripe.completeOnboarding(account);
    await eventually(async () =>
      (await shopView('cerejeira')).provider.connection === 'connect' ? true : undefined,
    );
    const late = await stripe.deliver(`${h.url}/webhooks/stripe-connect`, stale);
    expect(late.status).toBe(200);
    expect(late.body).toEqual({ received: true });
    expect((await shopView('cerejeira')).needs_reconnect).toBeUndefined();
    await stripe.setChargesEnabled(account, false);
    await eventually(async () =>
      (await shopView('cerejeira')).needs_reconnect ? true : undefined,
    );
    await stripe.setChargesEnabled(account, true);
    await eventually(async () =>
      (await shopView('cerejeira')).needs_reconnect === undefined ? true : undefined,
    );
    const trail = (await (await admin('/shops/cerejeira/audit')).json()) as {
      entries: Array<{ action: string }>;
    };
    expect(trail.entries.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['needs-reconnect', 'restored']),
    );
  });

  it('a forged code with a right state and cookie is refused by Mercado Pago: a 400 page, and the link works again', async () => {
    await addSandboxShop(h, admin, 'pau-brasil');
    const url = await linkFor('pau-brasil', 'mercadopago');
    const owner = new Browser();
    const state = new URL(await press(url, owner)).searchParams.get('state') ?? '';
    const forged = await owner.fetch(
      `${h.url}/connect/mercadopago/callback?code=TG-forged-1&state=${encodeURIComponent(state)}`,
    );
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('Não foi possível conectar');
    expect((await shopView('pau-brasil')).provider).toEqual({ name: 'sandbox' });
    expect((await fetch(url)).status).toBe(200);
  });
});
