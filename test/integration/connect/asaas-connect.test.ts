import { Redis } from 'ioredis';
import { ASAAS_COMPANY as OWNER } from '../../support/connect-shops';
import {
  ASAAS_PERSON as PERSON,
  asaasConnectWorld,
  bornYearsBefore,
} from '../../support/connect-worlds';
import type { FakeAsaas } from '../../support/fake-asaas';
import { eventually, type Harness } from '../../support/harness';

/*
 * Connecting a shop to Asaas without pasted keys (CONTRACT "Connecting a shop's provider
 * account"), the way it goes: the vendor's root account creates the shop's subaccount from the
 * owner's form (or the admin API's `account` body), registers its webhook with a token of ours,
 * and the shop's checkouts split the vendor's fee to the vendor's wallet; a payment reaches a
 * finish at the platform through that webhook. A form typed with punctuation, of a person who
 * turns 18 today, is taken. Also here, the one security test of the suite: the subaccount's key
 * and webhook token kept out of Redis, answers and logs. What Asaas or the form refuses is
 * asaas-connect.errors.test.ts's. Against a loopback Asaas written from its reference.
 */
describe("connecting a shop's Asaas account: a subaccount of the vendor's", () => {
  const world = asaasConnectWorld();
  const { admin, addShop, linkFor, submit } = world;
  let asaas: FakeAsaas;
  let h: Harness;
  beforeAll(() => {
    asaas = world.asaas;
    h = world.h;
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
