import { z } from 'zod';
import { brasiliaDay } from '../money';
import { isValidCnpj, isValidCpf } from './brazilian-documents';

/**
 * The owner's data for an Asaas subaccount, checked here before any call with the vendor's root
 * key (CONTRACT "The Asaas form"): a form that fails a check costs Asaas nothing. Asaas's field
 * names ("Criar subconta"); each problem in pt-BR, as the owner's form shows it under its field.
 */

/** What the owner may type between digits: dots, dashes, slashes, spaces and parentheses. */
const PUNCTUATION = /[\s.\-/()]/g;

/** A person may own an account from 18 (Código Civil, art. 5) to an age someone may have. */
const MIN_AGE_YEARS = 18;
const MAX_AGE_YEARS = 120;

/** What Asaas is sent: the punctuation typed dropped (its reference's examples send digits). */
function digitsOf(text: string): string {
  return text.replace(PUNCTUATION, '');
}

function tooLong(max: number): string {
  return `Use no máximo ${max} caracteres.`;
}

function filled(missing: string, max = 200) {
  return z.string({ error: missing }).trim().min(1, missing).max(max, tooLong(max));
}

/** A CPF or a CNPJ as Asaas takes it: the punctuation dropped, letters (a new CNPJ's) capital. */
function documentOf(text: string): string {
  return digitsOf(text).toUpperCase();
}

function documentProblem(document: string): string | undefined {
  if (/^\d{11}$/.test(document)) {
    return isValidCpf(document) ? undefined : 'CPF inválido: confira os números.';
  }
  if (document.length === 14) {
    return isValidCnpj(document) ? undefined : 'CNPJ inválido: confira os números.';
  }
  return 'Informe um CPF (11 números) ou um CNPJ (14 caracteres).';
}

/**
 * Whole years from `birthDate` to `today`, both `YYYY-MM-DD` (a calendar day, not an instant):
 * one born on 29 February comes of age on 1 March of a common year (Código Civil, art. 132 § 3).
 */
export function yearsOld(birthDate: string, today: string): number {
  const years = Number(today.slice(0, 4)) - Number(birthDate.slice(0, 4));
  return today.slice(5) < birthDate.slice(5) ? years - 1 : years;
}

/**
 * What is wrong with a person's birth date on `today` (Brasília's calendar day, read at each
 * parse: a schema built once must not fix its day); undefined when nothing is.
 */
function birthDateProblem(birthDate: string | undefined, today: string): string | undefined {
  if (birthDate === undefined) return 'Informe a data de nascimento: o Asaas a pede para um CPF.';
  const age = yearsOld(birthDate, today);
  if (age < 0 || age > MAX_AGE_YEARS) return 'Data de nascimento inválida: confira o ano.';
  if (age < MIN_AGE_YEARS) return 'Para abrir a conta com CPF, é preciso ter 18 anos ou mais.';
  return undefined;
}

function typedDigits(missing: string, pattern: RegExp, invalid: string) {
  return z
    .string({ error: missing })
    .transform(digitsOf)
    .refine((digits) => pattern.test(digits), { error: invalid });
}

const OWNER_FIELDS = {
  name: filled('Informe o nome ou a razão social.'),
  email: z.email({ error: 'E-mail inválido: confira o endereço.' }).max(200, tooLong(200)),
  cpfCnpj: z
    .string({ error: 'Informe o CPF ou o CNPJ.' })
    .transform(documentOf)
    .superRefine((document, ctx) => {
      const problem = documentProblem(document);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  birthDate: z.iso.date({ error: 'Data de nascimento inválida: confira o dia.' }).optional(),
  companyType: z
    .enum(['MEI', 'LIMITED', 'INDIVIDUAL', 'ASSOCIATION'], {
      error: 'Escolha o tipo de empresa na lista.',
    })
    .optional(),
  mobilePhone: typedDigits(
    'Informe o celular com DDD.',
    /^[1-9]{2}\d{8,9}$/,
    'Celular inválido: informe o DDD e o número, como (11) 98765-4321.',
  ),
  incomeValue: z.coerce
    .number({ error: 'Informe o faturamento mensal, maior que zero.' })
    .positive('Informe o faturamento mensal, maior que zero.')
    .max(1e10, 'Faturamento mensal alto demais: confira o valor.'),
  address: filled('Informe o endereço.'),
  addressNumber: filled('Informe o número.', 20),
  complement: z.string({ error: 'Complemento inválido.' }).trim().max(200, tooLong(200)).optional(),
  province: filled('Informe o bairro.'),
  postalCode: typedDigits(
    'Informe o CEP.',
    /^\d{8}$/,
    'CEP inválido: informe os 8 números, como 01310-100.',
  ),
};

/**
 * The owner's data Asaas needs for a subaccount; a person's age is reckoned on `now()`'s day in
 * Brasília, read at each parse.
 */
export function subaccountSchemaAt(now: () => Date) {
  return z.strictObject(OWNER_FIELDS).superRefine((owner, ctx) => {
    // A person's (CPF) birth date; a company's needs none.
    if (!/^\d{11}$/.test(owner.cpfCnpj)) return;
    const problem = birthDateProblem(owner.birthDate, brasiliaDay(now()));
    if (problem) ctx.addIssue({ code: 'custom', path: ['birthDate'], message: problem });
  });
}

export const subaccountSchema = subaccountSchemaAt(() => new Date());

export type SubaccountData = z.output<ReturnType<typeof subaccountSchemaAt>>;
