import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { addSandboxShop, adminApi, ASAAS_COMPANY } from '../../support/connect-shops';
import { FakeAsaas } from '../../support/fake-asaas';
import { eventually, startHarness, type Harness } from '../../support/harness';

/*
 * Connecting a shop to Asaas without pasted keys (CONTRACT "Connecting a shop's provider
 * account"): the vendor's root account creates the shop's subaccount from the owner's form (or
 * the admin API's `account` body), registers its webhook with a token of ours, and the shop's
 * checkouts split the vendor's fee to the vendor's wallet; a payment reaches a finish at the
 * platform through that webhook. Against a loopback Asaas written from its reference.
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

/** An owner's data as Asaas asks it for a company (a valid CNPJ's check digits). */
const OWNER = ASAAS_COMPANY;

/** An owner's data as Asaas asks it for a person: a valid CPF's check digits, a birth date. */
const PERSON = {
  ...OWNER,
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
function bornYearsBefore(years: number, daysFromToday = 0): string {
  const day = new Date(Date.now() + daysFromToday * 86_400_000).toLocaleDateString('en-CA', {
    timeZone: 'America/Sao_Paulo',
  });
  const [born, monthDay] = [Number(day.slice(0, 4)) - years, day.slice(5)];
  const leap = (born % 4 === 0 && born % 100 !== 0) || born % 400 === 0;
  if (monthDay !== '02-29' || leap) return `${born}-${monthDay}`;
  return `${born}-${daysFromToday > 0 ? '03-01' : '02-28'}`;
}

describe("connecting a shop's Asaas account: a subaccount of the vendor's", () => {
  let asaas: FakeAsaas;
  let h: Harness;

  const admin = adminApi(() => h, ADMIN_TOKEN);
  const addShop = (id: string) => addSandboxShop(h, admin, id);

  const linkFor = async (shop: string) => {
    const made = await admin(`/shops/${shop}/connect`, {
      method: 'POST',
      body: JSON.stringify({ provider: 'asaas' }),
    });
    expect(made.status).toBe(201);
    return ((await made.json()) as { url: string }).url;
  };

  const submit = (url: string, form: Record<string, string>) =>
    fetch(`${url}/asaas`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

  beforeAll(async () => {
    asaas = new FakeAsaas();
    await asaas.start();
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN,
        SHOP_REFRESH_MS: '200',
        ASAAS_ROOT_API_KEY: asaas.rootApiKey,
        ASAAS_API_URL: `${asaas.url}/v3`,
        PROVIDER_API_ORIGINS: asaas.url,
        VENDOR_FEE_PERCENT: '2',
        RECONCILE_INTERVAL_MS: '500',
      },
      start: { produceBackoffMs: 50 },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await asaas?.stop();
  });

  it("the owner's form creates the subaccount, registers its webhook, and a payment splits the vendor's fee to a finish", async () => {
    const { platform, route } = await addShop('ipe');
    const url = await linkFor('ipe');
    const page = await (await fetch(url)).text();
    expect(page).toContain('Loja ipe');
    expect(page).toContain('Asaas');
    expect(page.match(/<button/g)).toHaveLength(1);

    const done = await submit(url, OWNER);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Conta conectada');

    const subaccount = [...asaas.subaccounts.values()].find((a) => a.data.email === OWNER.email);
    if (!subaccount) throw new Error('no subaccount was created');
    expect(subaccount.data).toMatchObject({ cpfCnpj: '11222333000181', companyType: 'LIMITED' });
    // Its webhook: our URL for the shop, a token of ours (never shown), the events we read.
    expect(subaccount.webhooks).toEqual([
      expect.objectContaining({
        url: `${h.url}/webhooks/asaas/ipe`,
        enabled: true,
        events: expect.arrayContaining(['CHECKOUT_PAID', 'PAYMENT_RECEIVED']),
      }),
    ]);
    const view = (await (await admin('/shops/ipe')).json()) as {
      provider: Record<string, unknown>;
    };
    expect(view.provider).toEqual({
      name: 'asaas',
      connection: 'subaccount',
      account: subaccount.id,
      connectedAt: expect.any(String),
      vendorWalletId: asaas.rootWalletId,
      apiUrl: `${asaas.url}/v3`,
    });
    expect(JSON.stringify(view)).not.toContain(subaccount.apiKey);
    expect(h.log.text()).not.toContain(subaccount.apiKey);
    // Used once.
    expect((await fetch(url)).status).toBe(404);

    // A checkout on the subaccount, the fee split to the vendor's wallet.
    const answer = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
      body: JSON.stringify({ service_id: 1006 }),
    });
    expect(answer.status).toBe(202);
    const call = await eventually(() =>
      h.simulator
        .accepted('checkout-url')
        .find((c) => c.account === platform.email && c.serviceId === 1006),
    );
    const checkoutUrl = (call.body as { checkout_url?: string }).checkout_url;
    const checkout = [...asaas.checkouts.values()].find((c) => c.link === checkoutUrl);
    if (!checkout) throw new Error('no Asaas checkout');
    expect(checkout.accountId).toBe(subaccount.id);
    const valueMinor = Math.round(
      checkout.items.reduce((sum, i) => sum + i.value * i.quantity, 0) * 100,
    );
    const feeMinor = Math.floor((valueMinor * 200 + 5_000) / 10_000);
    expect(checkout.splits).toEqual([
      expect.objectContaining({ walletId: asaas.rootWalletId, fixedValue: feeMinor / 100 }),
    ]);

    // Paid by Pix; Asaas posts to the registered webhook with our token.
    asaas.pay(checkout, { billingType: 'PIX', status: 'RECEIVED' });
    const delivered = await asaas.deliver(asaas.event('CHECKOUT_PAID', { checkout }));
    expect(delivered.map((d) => d.status)).toEqual([200]);
    await eventually(() =>
      h.simulator
        .accepted('finish-checkout')
        .find((c) => c.account === platform.email && c.serviceId === 1006),
    );
  });

  it('shows the form again with what Asaas refused, and the link still works', async () => {
    await addShop('jatoba');
    const url = await linkFor('jatoba');
    const mine = { ...OWNER, email: 'dono@jatoba.example' };
    const refused = await submit(url, { ...mine, mobilePhone: '12' });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('value="dono@jatoba.example"');
    // An email another Asaas account has: Asaas's own refusal, said on the form.
    await addShop('angico');
    const other = await admin('/shops/angico/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'asaas', account: { ...OWNER, email: 'em-uso@x.example' } }),
    });
    expect(other.status).toBe(201);
    const taken = await submit(url, { ...mine, email: 'em-uso@x.example' });
    expect(taken.status).toBe(400);
    expect(await taken.text()).toContain('já está em uso');
    expect((await fetch(url)).status).toBe(200);
  });

  /*
   * The root key opens an account in the vendor's name at Asaas: the owner's data is checked here
   * first (CONTRACT "The Asaas form"), and a form that fails a check never reaches Asaas.
   */
  /** What Asaas was asked with the vendor's root key since `from` (an index of its requests). */
  const rootCallsSince = (from: number) =>
    asaas.requests
      .slice(from)
      .filter((r) => r.apiKey === asaas.rootApiKey)
      .map((r) => `${r.method} ${r.path}`);

  it.each([
    [
      'a CPF with wrong check digits',
      { ...PERSON, cpfCnpj: '529.982.247-24' },
      'cpfCnpj',
      'CPF inválido',
    ],
    [
      'a CPF of one digit repeated',
      { ...PERSON, cpfCnpj: '111.111.111-11' },
      'cpfCnpj',
      'CPF inválido',
    ],
    [
      'a CNPJ with wrong check digits',
      { ...OWNER, cpfCnpj: '11.222.333/0001-82' },
      'cpfCnpj',
      'CNPJ inválido',
    ],
    [
      'a CNPJ of one digit repeated',
      { ...OWNER, cpfCnpj: '00.000.000/0000-00' },
      'cpfCnpj',
      'CNPJ inválido',
    ],
    ['a CEP of 7 digits', { ...OWNER, postalCode: '1310-100' }, 'postalCode', 'CEP inválido'],
    [
      'a phone without its DDD',
      { ...OWNER, mobilePhone: '98765-4321' },
      'mobilePhone',
      'Celular inválido',
    ],
    [
      'a DDD with a 0',
      { ...OWNER, mobilePhone: '(10) 98765-4321' },
      'mobilePhone',
      'Celular inválido',
    ],
    [
      'a DDD of 01',
      { ...OWNER, mobilePhone: '(01) 98765-4321' },
      'mobilePhone',
      'Celular inválido',
    ],
    [
      'a person of 17 years',
      { ...PERSON, birthDate: bornYearsBefore(18, 1) },
      'birthDate',
      '18 anos',
    ],
    [
      'a person of 121 years',
      { ...PERSON, birthDate: bornYearsBefore(121) },
      'birthDate',
      'Data de nascimento inválida',
    ],
    [
      'a person born tomorrow',
      { ...PERSON, birthDate: bornYearsBefore(0, 1) },
      'birthDate',
      'Data de nascimento inválida',
    ],
    [
      'a person with no birth date',
      { ...PERSON, birthDate: '' },
      'birthDate',
      'data de nascimento',
    ],
    ['an income of 0', { ...OWNER, incomeValue: '0' }, 'incomeValue', 'maior que zero'],
  ])(
    'refuses %s on the form, naming the field, and never calls Asaas with the root key',
    async (_case, form, field, problem) => {
      const shop = `ipe-roxo-${randomBytes(4).toString('hex')}`;
      await addShop(shop);
      const url = await linkFor(shop);
      const before = asaas.requests.length;
      const refused = await submit(url, { ...form, email: `dono@${shop}.example` });
      expect(rootCallsSince(before)).toEqual([]);
      expect(refused.status).toBe(400);
      const html = await refused.text();
      expect(html).toMatch(new RegExp(`name="${field}"[^>]*aria-invalid="true"`));
      expect(html).toContain(problem);
      expect(html).toContain(`value="dono@${shop}.example"`);
      expect(
        [...asaas.subaccounts.values()].some((a) => a.data.email === `dono@${shop}.example`),
      ).toBe(false);
      // The link still works.
      expect((await fetch(url)).status).toBe(200);
    },
  );

  it('refuses a CPF of wrong check digits in the admin API too, before any call with the root key', async () => {
    await addShop('ipe-amarelo');
    const before = asaas.requests.length;
    const refused = await admin('/shops/ipe-amarelo/connect', {
      method: 'POST',
      body: JSON.stringify({
        provider: 'asaas',
        account: {
          ...PERSON,
          email: 'dono@ipe-amarelo.example',
          cpfCnpj: '52998224724',
          companyType: undefined,
        },
      }),
    });
    expect(rootCallsSince(before)).toEqual([]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { code: 'VALIDATION_FAILED', details: [{ field: 'cpfCnpj' }] },
    });
  });

  it('takes a person who turns 18 today, punctuation as typed, and sends Asaas digits only', async () => {
    await addShop('ipe-branco');
    const url = await linkFor('ipe-branco');
    const birthDate = bornYearsBefore(18);
    const done = await submit(url, {
      ...PERSON,
      email: 'dono@ipe-branco.example',
      cpfCnpj: ' 529.982.247-25 ',
      mobilePhone: '(21) 9 8765-4321',
      postalCode: '20040-020',
      birthDate,
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Conta conectada');
    const made = [...asaas.subaccounts.values()].find(
      (a) => a.data.email === 'dono@ipe-branco.example',
    );
    expect(made?.data).toMatchObject({
      cpfCnpj: '52998224725',
      mobilePhone: '21987654321',
      postalCode: '20040020',
      birthDate,
    });
  });

  it("the admin API's account body creates the subaccount at once", async () => {
    await addShop('cumaru');
    const response = await admin('/shops/cumaru/connect', {
      method: 'POST',
      body: JSON.stringify({
        provider: 'asaas',
        account: {
          ...OWNER,
          email: 'dono@cumaru.example',
          cpfCnpj: '52998224725',
          birthDate: '1980-05-01',
          companyType: undefined,
        },
      }),
    });
    expect(response.status).toBe(201);
    const shop = (await response.json()) as { provider: { connection?: string; account?: string } };
    expect(shop.provider.connection).toBe('subaccount');
    expect(asaas.subaccounts.get(shop.provider.account ?? '')?.data.email).toBe(
      'dono@cumaru.example',
    );
  });

  it('a shop whose payment choice Asaas cannot serve gets no link, and no account is made', async () => {
    await addShop('peroba-rosa');
    const changed = await admin('/shops/peroba-rosa', {
      method: 'PATCH',
      body: JSON.stringify({ payment: { methods: ['boleto'] } }),
    });
    expect(changed.status).toBe(200);
    const accounts = asaas.subaccounts.size;
    const refused = await admin('/shops/peroba-rosa/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'asaas' }),
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('payment.methods');
    const now = await admin('/shops/peroba-rosa/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'asaas', account: { ...OWNER, email: 'x@peroba.example' } }),
    });
    expect(now.status).toBe(400);
    expect(asaas.subaccounts.size).toBe(accounts);
  });

  it("keeps the subaccount's key and webhook token sealed: not in Redis, answers or logs", async () => {
    await addShop('cabreuva');
    const made = await admin('/shops/cabreuva/connect', {
      method: 'POST',
      body: JSON.stringify({
        provider: 'asaas',
        account: { ...OWNER, email: 'dono@cabreuva.example' },
      }),
    });
    expect(made.status).toBe(201);
    const subaccount = [...asaas.subaccounts.values()].find(
      (a) => a.data.email === 'dono@cabreuva.example',
    );
    if (!subaccount) throw new Error('no subaccount');
    const token = subaccount.webhooks[0]?.authToken ?? '';
    expect(token.length).toBeGreaterThanOrEqual(32);
    const client = new Redis(h.redis.url);
    try {
      const shops = await client.hgetall(`{${h.prefix}:registry}:shops`);
      const raw = Object.values(shops).join('\n');
      expect(raw).toContain('"connection":"subaccount"');
      expect(raw).not.toContain(subaccount.apiKey);
      expect(raw).not.toContain(token);
      expect(raw).not.toContain(subaccount.walletId);
    } finally {
      await client.quit();
    }
    expect(h.log.text()).not.toContain(subaccount.apiKey);
    expect(h.log.text()).not.toContain(token);
  });
});
