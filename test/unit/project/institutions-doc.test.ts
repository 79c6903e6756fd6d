import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROVIDER_LIST } from '../../../src/payments/providers';
import { PIX_PROFILES } from '../../../src/payments/pix/pix-profiles';

/*
 * The institutions that take payments (the NF-e's CNPJ) are facts the code and the ERP guide both
 * state: each provider's and each bank profile's CNPJ, as the code has it, is the guide's, and a
 * CNPJ's check digits hold (a typo in a copied number fails here).
 */
const GUIDE = readFileSync(path.join(__dirname, '../../../docs/payments-to-the-erp.md'), 'utf8');

/** 10573521000191 as 10.573.521/0001-91. */
const formatted = (cnpj: string) =>
  cnpj.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5');

/** The CNPJ's two check digits (Receita Federal's modulo-11 rule). */
function checkDigitsHold(cnpj: string): boolean {
  const digits = [...cnpj].map(Number);
  const check = (length: number) => {
    const weights =
      length === 12
        ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
        : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const sum = weights.reduce((total, weight, i) => total + weight * (digits[i] ?? 0), 0);
    const rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  return check(12) === digits[12] && check(13) === digits[13];
}

const INSTITUTIONS = [
  ...PROVIDER_LIST.flatMap((p) =>
    p.api?.institution ? [[p.name, p.api.institution] as const] : [],
  ),
  ...Object.values(PIX_PROFILES).flatMap((p) =>
    p.institution ? [[`pix, PIX_PSP=${p.psp}`, p.institution] as const] : [],
  ),
];

describe('the institutions that take the payments', () => {
  it('are more than a few: every hosted provider and the banks that name one', () => {
    expect(INSTITUTIONS.map(([name]) => name)).toEqual(
      expect.arrayContaining(['stripe', 'mercadopago', 'asaas', 'pix, PIX_PSP=efi']),
    );
  });

  it.each(INSTITUTIONS)(
    '%s: its CNPJ is a valid one, with its source, in the ERP guide',
    (name, institution) => {
      expect(institution.cnpj).toMatch(/^\d{14}$/);
      expect(checkDigitsHold(institution.cnpj)).toBe(true);
      expect(institution.source.length).toBeGreaterThan(20);
      // Its item in the guide's list: `stripe`: ... **22.121.209/0001-46**, a bank's under `pix`.
      const key = name.startsWith('pix, PIX_PSP=') ? name.slice('pix, PIX_PSP='.length) : name;
      const row = GUIDE.split('\n').find(
        (line, i, lines) =>
          line.trimStart().startsWith(`- \`${key}\`:`) &&
          `${line} ${lines[i + 1] ?? ''}`.includes(`**${formatted(institution.cnpj)}**`),
      );
      expect(row).toBeDefined();
    },
  );
});
