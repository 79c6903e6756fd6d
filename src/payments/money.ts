/** Money as an integer of minor units (centavos) and an ISO 4217 code. */
export interface Money {
  amountMinor: number;
  currency: string;
}

/** One line of what is being paid, shown on payment pages. */
export interface ChargeLine {
  label: string;
  amountMinor: number;
}
