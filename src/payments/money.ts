/** Money as an integer of minor units (centavos) and an ISO 4217 code. */
export interface Money {
  amountMinor: number;
  currency: string;
}

/** Minor units (centavos) of an amount a provider gives in major units (reais, 530.35). */
export function minorOf(major: number): number {
  return Math.round(major * 100);
}

/** One line of what is being paid, shown on payment pages. */
export interface ChargeLine {
  label: string;
  amountMinor: number;
}

/** `YYYY-MM-DD` in Brasília (en-CA writes dates so). */
const BRASILIA_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' });

/** The calendar day of an instant in Brasília, `YYYY-MM-DD`: a settlement's release date. */
export function brasiliaDay(at: Date): string {
  return BRASILIA_DAY.format(at);
}
