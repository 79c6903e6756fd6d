import {
  subaccountSchema,
  subaccountSchemaAt,
  yearsOld,
} from '../../../src/payments/asaas/subaccount-owner';
import { ASAAS_COMPANY } from '../../support/connect-shops';

/*
 * The owner's data for an Asaas subaccount, checked before the vendor's root key is used
 * (CONTRACT "The Asaas form"): each problem names its field, in pt-BR, as the form shows it.
 */
const COMPANY = ASAAS_COMPANY;
const PERSON = {
  ...COMPANY,
  cpfCnpj: '529.982.247-25',
  companyType: undefined,
  birthDate: '1980-05-01',
};

/** What the schema refuses in `input`: each field and its problem. */
function problemsOf(input: Record<string, unknown>): Array<[string, string]> {
  const parsed = schema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join('.'), i.message]);
}

/** 23:30 of 7 December 2026 in Brasília: 8 December already in UTC. */
const LATE_EVENING = new Date('2026-12-08T02:30:00Z');
const schema = subaccountSchemaAt(() => LATE_EVENING);

describe("an Asaas subaccount's owner", () => {
  it('takes punctuation as typed and gives Asaas the digits', () => {
    const parsed = subaccountSchema.parse({
      ...COMPANY,
      cpfCnpj: ' 11.222.333/0001-81 ',
      mobilePhone: '(21) 9 8765-4321',
      postalCode: '20040 020',
    });
    expect(parsed).toMatchObject({
      cpfCnpj: '11222333000181',
      mobilePhone: '21987654321',
      postalCode: '20040020',
      incomeValue: 25000,
    });
    expect(subaccountSchema.parse({ ...COMPANY, cpfCnpj: '12.abc.345/01de-35' }).cpfCnpj).toBe(
      '12ABC34501DE35',
    );
  });

  it.each([
    [
      'a CPF of wrong check digits',
      { ...PERSON, cpfCnpj: '529.982.247-24' },
      'cpfCnpj',
      'CPF inválido: confira os números.',
    ],
    [
      'a CPF of one digit repeated',
      { ...PERSON, cpfCnpj: '111.111.111-11' },
      'cpfCnpj',
      'CPF inválido: confira os números.',
    ],
    [
      'a CNPJ of wrong check digits',
      { ...COMPANY, cpfCnpj: '11.222.333/0001-82' },
      'cpfCnpj',
      'CNPJ inválido: confira os números.',
    ],
    [
      'a CNPJ of one digit repeated',
      { ...COMPANY, cpfCnpj: '00000000000000' },
      'cpfCnpj',
      'CNPJ inválido: confira os números.',
    ],
    [
      'a document of 12 digits',
      { ...COMPANY, cpfCnpj: '529982247250' },
      'cpfCnpj',
      'Informe um CPF (11 números) ou um CNPJ (14 caracteres).',
    ],
    [
      'a letter in a CPF',
      { ...PERSON, cpfCnpj: '529.982.247-2x' },
      'cpfCnpj',
      'Informe um CPF (11 números) ou um CNPJ (14 caracteres).',
    ],
    [
      'a CEP of 7 digits',
      { ...COMPANY, postalCode: '1310-100' },
      'postalCode',
      'CEP inválido: informe os 8 números, como 01310-100.',
    ],
    [
      'a CEP of 9 digits',
      { ...COMPANY, postalCode: '01310-1000' },
      'postalCode',
      'CEP inválido: informe os 8 números, como 01310-100.',
    ],
    [
      'a phone of 9 digits',
      { ...COMPANY, mobilePhone: '11 8765-432' },
      'mobilePhone',
      'Celular inválido: informe o DDD e o número, como (11) 98765-4321.',
    ],
    [
      'a phone of 12 digits',
      { ...COMPANY, mobilePhone: '011 98765-4321' },
      'mobilePhone',
      'Celular inválido: informe o DDD e o número, como (11) 98765-4321.',
    ],
    [
      'a DDD of 10',
      { ...COMPANY, mobilePhone: '(10) 98765-4321' },
      'mobilePhone',
      'Celular inválido: informe o DDD e o número, como (11) 98765-4321.',
    ],
    [
      'a DDD of 20',
      { ...COMPANY, mobilePhone: '(20) 8765-4321' },
      'mobilePhone',
      'Celular inválido: informe o DDD e o número, como (11) 98765-4321.',
    ],
    [
      'a DDD of 01',
      { ...COMPANY, mobilePhone: '(01) 98765-4321' },
      'mobilePhone',
      'Celular inválido: informe o DDD e o número, como (11) 98765-4321.',
    ],
    [
      'a letter in the phone',
      { ...COMPANY, mobilePhone: '(11) 98765-432l' },
      'mobilePhone',
      'Celular inválido: informe o DDD e o número, como (11) 98765-4321.',
    ],
    [
      'an income of 0',
      { ...COMPANY, incomeValue: '0' },
      'incomeValue',
      'Informe o faturamento mensal, maior que zero.',
    ],
    [
      'an income below 0',
      { ...COMPANY, incomeValue: '-1' },
      'incomeValue',
      'Informe o faturamento mensal, maior que zero.',
    ],
    [
      'an income that is no number',
      { ...COMPANY, incomeValue: 'muito' },
      'incomeValue',
      'Informe o faturamento mensal, maior que zero.',
    ],
    [
      'no income',
      { ...COMPANY, incomeValue: undefined },
      'incomeValue',
      'Informe o faturamento mensal, maior que zero.',
    ],
    [
      'a person with no birth date',
      { ...PERSON, birthDate: undefined },
      'birthDate',
      'Informe a data de nascimento: o Asaas a pede para um CPF.',
    ],
    [
      'a birth date that is no day',
      { ...PERSON, birthDate: '1980-02-30' },
      'birthDate',
      'Data de nascimento inválida: confira o dia.',
    ],
    [
      'a person of 121 years',
      { ...PERSON, birthDate: '1905-12-07' },
      'birthDate',
      'Data de nascimento inválida: confira o ano.',
    ],
    [
      'a person born next year',
      { ...PERSON, birthDate: '2027-01-01' },
      'birthDate',
      'Data de nascimento inválida: confira o ano.',
    ],
    [
      'a person of 17 whom UTC makes 18 (8 December already there)',
      { ...PERSON, birthDate: '2008-12-08' },
      'birthDate',
      'Para abrir a conta com CPF, é preciso ter 18 anos ou mais.',
    ],
    ['no name', { ...COMPANY, name: '  ' }, 'name', 'Informe o nome ou a razão social.'],
  ])('refuses %s, naming the field in pt-BR', (_case, input, field, problem) => {
    expect(problemsOf(input)).toEqual([[field, problem]]);
  });

  it.each([
    ['DDD 11, 11 digits', '(11) 98765-4321'],
    ['DDD 99, 11 digits', '99 98765 4321'],
    ['DDD 21, 10 digits', '21 8765-4321'],
  ])('takes a phone with %s', (_case, mobilePhone) => {
    expect(problemsOf({ ...COMPANY, mobilePhone })).toEqual([]);
  });

  it("takes a person of 18 on Brasília's day and of 120, and asks a company no birth date", () => {
    expect(problemsOf({ ...PERSON, birthDate: '2008-12-07' })).toEqual([]);
    expect(problemsOf({ ...PERSON, birthDate: '1906-12-07' })).toEqual([]);
    expect(problemsOf({ ...COMPANY, birthDate: undefined })).toEqual([]);
    // A company's date (its foundation) is no person's age.
    expect(problemsOf({ ...COMPANY, birthDate: '2025-12-07' })).toEqual([]);
    expect(problemsOf({ ...PERSON, incomeValue: '0.01' })).toEqual([]);
  });

  it('reckons age on the day of each parse, not the day the schema was built', () => {
    let now = new Date('2026-12-07T12:00:00-03:00');
    const clocked = subaccountSchemaAt(() => now);
    const minor = { ...PERSON, birthDate: '2008-12-08' };
    expect(clocked.safeParse(minor).success).toBe(false);
    now = new Date('2026-12-08T00:00:00-03:00');
    expect(clocked.safeParse(minor).success).toBe(true);
  });

  it('names every problem at once, the birth date with the others', () => {
    expect(
      problemsOf({
        ...PERSON,
        postalCode: '0131',
        birthDate: '2008-12-08',
        incomeValue: '0',
      }),
    ).toEqual([
      ['incomeValue', 'Informe o faturamento mensal, maior que zero.'],
      ['postalCode', 'CEP inválido: informe os 8 números, como 01310-100.'],
      ['birthDate', 'Para abrir a conta com CPF, é preciso ter 18 anos ou mais.'],
    ]);
  });
});

describe('yearsOld: whole years on a calendar day', () => {
  it.each([
    ['the day before the 18th birthday', '2008-12-08', '2026-12-07', 17],
    ['the 18th birthday', '2008-12-07', '2026-12-07', 18],
    ['the day after', '2008-12-06', '2026-12-07', 18],
    ['the last day of a year, born on the first', '2008-01-01', '2026-12-31', 18],
    ['born on 29 February, on 28 February of a common year', '2008-02-29', '2026-02-28', 17],
    ['born on 29 February, on 1 March of a common year', '2008-02-29', '2026-03-01', 18],
    ['born on 29 February, on 29 February', '2008-02-29', '2024-02-29', 16],
    ['born tomorrow', '2026-12-08', '2026-12-07', -1],
  ])('%s', (_case, birthDate, today, years) => {
    expect(yearsOld(birthDate, today)).toBe(years);
  });
});
