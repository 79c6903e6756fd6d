/**
 * Brazil's taxpayer numbers and their check digits (Receita Federal's modulo 11): a CPF (a
 * person, 11 digits) and a CNPJ (a company, 14 characters), punctuation already dropped. A number
 * of one digit repeated (111.111.111-11, 00.000.000/0000-00) passes the arithmetic and is no one's.
 *
 * Since July 2026 a new CNPJ may hold capital letters in its first 12 characters (IN RFB
 * 2.229/2024, "CNPJ alfanumérico"): each character counts as its code less 48 ('0' is 0, 'A' is
 * 17), which leaves the digits' arithmetic as it was; the two check digits stay digits.
 */

/** A check digit of `base`, weighted from the right 2, 3, ... up to `maxWeight`, then 2 again. */
function checkDigit(base: string, maxWeight: number): number {
  let sum = 0;
  for (let i = 0; i < base.length; i++) {
    const weight = ((base.length - 1 - i) % (maxWeight - 1)) + 2;
    sum += weight * (base.charCodeAt(i) - 48);
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function hasCheckDigits(text: string, maxWeight: number): boolean {
  if (/^(.)\1*$/.test(text)) return false;
  const base = text.slice(0, -2);
  const first = checkDigit(base, maxWeight);
  const second = checkDigit(`${base}${first}`, maxWeight);
  return text.endsWith(`${first}${second}`);
}

export function isValidCpf(text: string): boolean {
  // Weights 10 down to 2, then 11 down to 2: from the right, 2 upward with no wrap.
  return /^\d{11}$/.test(text) && hasCheckDigits(text, 12);
}

export function isValidCnpj(text: string): boolean {
  // Weights 5..2, 9..2, then 6..2, 9..2: from the right, 2 to 9 and again.
  return /^[\dA-Z]{12}\d{2}$/.test(text) && hasCheckDigits(text, 9);
}
