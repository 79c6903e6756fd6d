/** Money as an integer of minor units (centavos) and an ISO 4217 code. */
export interface Money {
  amountMinor: number;
  currency: string;
}

/**
 * Centavos as a person in Brazil reads them, "R$ 1.234,56": the pages' own formatter, for the
 * words a use case gives a customer (html/ is below payments/ and checkout/).
 */
export { formatMoney } from '../html/page-layout';

/** Minor units (centavos) of an amount a provider gives in major units (reais, 530.35). */
export function minorOf(major: number): number {
  return Math.round(major * 100);
}

/** One line of what is being paid, shown on payment pages. */
export interface ChargeLine {
  label: string;
  amountMinor: number;
}

/**
 * A charge as the one item of a provider's hosted page (Asaas, Mercado Pago): its lines' labels
 * (at most 250 characters, both providers' limit) and its amount in major units.
 */
export function singleItemOf(charge: { lines: ChargeLine[]; amount: Money }): {
  description: string;
  value: number;
} {
  const description = charge.lines
    .map((line) => line.label)
    .join('; ')
    .slice(0, 250);
  return { description, value: charge.amount.amountMinor / 100 };
}

/** `YYYY-MM-DD` in Brasília (en-CA writes dates so). */
const BRASILIA_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' });

/** The calendar day of an instant in Brasília, `YYYY-MM-DD`: a settlement's release date. */
export function brasiliaDay(at: Date): string {
  return BRASILIA_DAY.format(at);
}
