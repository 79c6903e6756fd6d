import type { CardDetails, CardFunding, Payer } from './payment-provider';
import { CARD_FUNDINGS } from './payment-provider';

/*
 * What a provider reports of who paid and with what card, read into the connector's words by
 * every adapter the same way: a brand's several spellings made one, a document's punctuation
 * dropped, and anything that does not read as what it claims to be (a number for a name, an
 * object for a code) left absent, never a guess and never a failed read.
 */

/**
 * The brands the NF-e names, as each provider spells them (Stripe's `brand`, Mercado Pago's
 * `payment_method_id`, Asaas's `creditCardBrand`), lowercased with every non-letter dropped.
 */
const BRANDS = new Map<string, string>(
  Object.entries({
    visa: 'visa',
    debvisa: 'visa',
    mastercard: 'mastercard',
    master: 'mastercard',
    debmaster: 'mastercard',
    amex: 'amex',
    americanexpress: 'amex',
    diners: 'diners',
    dinersclub: 'diners',
    elo: 'elo',
    debelo: 'elo',
    hipercard: 'hipercard',
  }),
);

/**
 * A card's brand in the connector's words: one of BRANDS' (visa, mastercard, amex, diners, elo,
 * hipercard), else the provider's word lowercased (`discover`, `jcb`), absent when it names none
 * (`unknown`, empty).
 */
export function cardBrandOf(word: unknown): string | undefined {
  const key = textOf(word)
    ?.toLowerCase()
    .replace(/[^a-z]/g, '');
  // `unknown` is Stripe's word for none; `link` its wallet, which names no card brand.
  if (!key || key === 'unknown' || key === 'link') return undefined;
  return BRANDS.get(key) ?? key.slice(0, 30);
}

/** A CPF or CNPJ as digits when it reads as one (punctuation dropped); else as reported. */
export function documentOf(raw: unknown): string | undefined {
  const text = textOf(raw)?.trim() ?? '';
  if (!text) return undefined;
  const digits = text.replace(/[.\-/\s]/g, '');
  return /^(\d{11}|\d{14})$/.test(digits) ? digits : text.slice(0, 40);
}

/** The payer, absent when the provider names neither a name nor a document. */
export function payerOf(name: unknown, document: unknown): { payer?: Payer } {
  const trimmed = textOf(name)?.trim();
  const told = documentOf(document);
  const payer: Payer = {
    ...(trimmed ? { name: trimmed.slice(0, 200) } : {}),
    ...(told ? { document: told } : {}),
  };
  return Object.keys(payer).length > 0 ? { payer } : {};
}

/** A card's details, each kept only when it reads as what it is; absent when none does. */
export function cardOf(details: {
  brand?: unknown;
  last4?: unknown;
  authorizationCode?: unknown;
  funding?: unknown;
}): { card?: CardDetails } {
  const brand = cardBrandOf(details.brand);
  const digits = textOf(details.last4);
  const last4 = digits && /^\d{4}$/.test(digits) ? digits : undefined;
  const code = textOf(details.authorizationCode)?.trim();
  const authorizationCode = code && /^[A-Za-z0-9]{1,20}$/.test(code) ? code : undefined;
  const told = textOf(details.funding);
  const funding = (CARD_FUNDINGS as readonly string[]).includes(told ?? '')
    ? (told as CardFunding)
    : undefined;
  const card: CardDetails = {
    ...(brand ? { brand } : {}),
    ...(last4 ? { last4 } : {}),
    ...(authorizationCode ? { authorizationCode } : {}),
    ...(funding ? { funding } : {}),
  };
  return Object.keys(card).length > 0 ? { card } : {};
}

/**
 * When the money moved: an instant as ISO-8601 in UTC (seconds since the epoch, or a date-time
 * with its offset), or a day `YYYY-MM-DD` as written where the provider gives only the day (Asaas);
 * absent when it does not read as either.
 */
export function paidAtOf(value: unknown): { paidAt?: string } {
  if (typeof value !== 'string' && typeof value !== 'number') return {};
  if (value === '') return {};
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value)
      ? { paidAt: value }
      : {};
  }
  const at = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(at.getTime()) ? {} : { paidAt: at.toISOString() };
}

/** A string as it is; anything else (a provider's answer of an unexpected shape) as none. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** An institution that takes payments, with the public page its CNPJ was read from. */
export interface Institution {
  /** Its legal name. */
  name: string;
  /** 14 digits. */
  cnpj: string;
  /** Where the CNPJ is stated publicly. */
  source: string;
}
