import { randomBytes } from 'node:crypto';
import { ASAAS_COMPANY as OWNER } from '../../support/connect-shops';
import {
  ASAAS_PERSON as PERSON,
  asaasConnectWorld,
  bornYearsBefore,
} from '../../support/connect-worlds';
import type { FakeAsaas } from '../../support/fake-asaas';

/*
 * Connecting a shop to Asaas (CONTRACT "Connecting a shop's provider account"), when the owner's
 * data is refused: what Asaas refuses is said on the form again, and the link still works. The
 * root key opens an account in the vendor's name at Asaas, so the owner's data is checked here
 * first (CONTRACT "The Asaas form"): a form or an admin API body that fails a check (CPF, CNPJ,
 * CEP, phone, age, income) never reaches Asaas; nor does a shop whose payment choice Asaas cannot
 * serve get a link or an account. Against a loopback Asaas written from its reference.
 */
describe("connecting a shop's Asaas account: what is refused", () => {
  const world = asaasConnectWorld();
  const { admin, addShop, linkFor, submit } = world;
  let asaas: FakeAsaas;
  beforeAll(() => {
    asaas = world.asaas;
  });

  /** What Asaas was asked with the vendor's root key since `from` (an index of its requests). */
  const rootCallsSince = (from: number) =>
    asaas.requests
      .slice(from)
      .filter((r) => r.apiKey === asaas.rootApiKey)
      .map((r) => `${r.method} ${r.path}`);

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
});
