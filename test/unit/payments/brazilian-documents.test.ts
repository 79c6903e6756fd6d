import { isValidCnpj, isValidCpf } from '../../../src/payments/asaas/brazilian-documents';

/*
 * CPF and CNPJ check digits (Receita Federal's modulo 11), as the Asaas form checks them before
 * the vendor's root key is used (CONTRACT "The Asaas form"). Digits only: the form drops the
 * punctuation first.
 */

/** Every pair of check digits after `base`, and which of them `valid` takes. */
const takenAfter = (base: string, valid: (text: string) => boolean) =>
  Array.from({ length: 100 }, (_, n) => `${base}${String(n).padStart(2, '0')}`).filter(valid);

describe('CPF', () => {
  it.each(['52998224725', '11144477735', '93541134780', '39053344705', '12345678909'])(
    'takes %s, a CPF whose check digits are right',
    (cpf) => expect(isValidCpf(cpf)).toBe(true),
  );

  it('takes one pair of check digits only after a given 9 digits', () => {
    expect(takenAfter('529982247', isValidCpf)).toEqual(['52998224725']);
    expect(takenAfter('111444777', isValidCpf)).toEqual(['11144477735']);
  });

  it.each([
    ['the first check digit wrong', '52998224735'],
    ['the second check digit wrong', '52998224724'],
    ['two digits swapped', '25998224725'],
    ['one digit repeated, which the arithmetic passes', '11111111111'],
    ['zeros', '00000000000'],
    ['10 digits', '5299822472'],
    ['12 digits', '529982247250'],
    ['punctuation left in', '529.982.247-25'],
    ['a letter', '52998224A25'],
    ['a CNPJ', '11222333000181'],
    ['nothing', ''],
  ])('refuses %s', (_case, cpf) => expect(isValidCpf(cpf)).toBe(false));

  it('refuses each digit repeated eleven times', () => {
    for (let d = 0; d <= 9; d++) expect(isValidCpf(String(d).repeat(11))).toBe(false);
  });
});

describe('CNPJ', () => {
  it.each([
    '11222333000181',
    // Asaas's example in "Criação de subcontas".
    '66625514000140',
    '00000000000191',
    '33000167000101',
    // Letters, since July 2026 (IN RFB 2.229/2024): the Receita's example of the calculation.
    '12ABC34501DE35',
  ])('takes %s, a CNPJ whose check digits are right', (cnpj) =>
    expect(isValidCnpj(cnpj)).toBe(true),
  );

  it('takes one pair of check digits only after a given 12 characters', () => {
    expect(takenAfter('112223330001', isValidCnpj)).toEqual(['11222333000181']);
    expect(takenAfter('12ABC34501DE', isValidCnpj)).toEqual(['12ABC34501DE35']);
  });

  it.each([
    ['the first check digit wrong', '11222333000191'],
    ['the second check digit wrong', '11222333000182'],
    ['a branch changed and the check digits kept', '11222333000281'],
    ['one digit repeated', '11111111111111'],
    ['zeros', '00000000000000'],
    ['13 digits', '1122233300018'],
    ['15 digits', '112223330001810'],
    ['punctuation left in', '11.222.333/0001-81'],
    ['small letters (the form makes them capital first)', '12abc34501de35'],
    ['a letter among the check digits', '12ABC34501DE3A'],
    ['a letter changed', '12ABD34501DE35'],
    ['a CPF', '52998224725'],
    ['nothing', ''],
  ])('refuses %s', (_case, cnpj) => expect(isValidCnpj(cnpj)).toBe(false));

  it('refuses each digit repeated fourteen times', () => {
    for (let d = 0; d <= 9; d++) expect(isValidCnpj(String(d).repeat(14))).toBe(false);
  });
});
