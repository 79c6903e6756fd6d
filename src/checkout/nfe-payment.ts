import type { CardDetails, PaidWith } from '../payments/payment-provider';

/*
 * The NF-e's payment group (`detPag`, and its `card` group), as far as the provider reported what
 * fills it (docs/payments-to-the-erp.md, "Filling the NF-e's payment group"). The codes are the
 * layout's (NF-e 4.00, NT 2020.006 and Informe Técnico 2024.002); a code the report does not
 * decide is null, never a guess.
 */

/** `tBand`: the card brand's code; a brand the table does not list is 99 (Outros). */
const BRAND_CODES = new Map<string, string>(
  Object.entries({
    visa: '01',
    mastercard: '02',
    amex: '03',
    diners: '05',
    elo: '06',
    hipercard: '07',
  }),
);

/**
 * `tPag`: 17 a Pix paid with a QR code made for the order (dynamic: every provider's here), 15 a
 * boleto, 03 a credit card and 04 a debit card, 99 a prepaid card (the table has no code of its
 * own for one); null for a card whose funding was not reported, or no method reported.
 */
export function tPagOf(method: PaidWith | undefined, card: CardDetails | undefined): string | null {
  switch (method) {
    case 'pix':
      return '17';
    case 'boleto':
      return '15';
    case 'card':
      if (card?.funding === 'credit') return '03';
      if (card?.funding === 'debit') return '04';
      return card?.funding === 'prepaid' ? '99' : null;
    default:
      return null;
  }
}

/** `tBand`: null when no brand was reported. */
export function tBandOf(card: CardDetails | undefined): string | null {
  if (!card?.brand) return null;
  return BRAND_CODES.get(card.brand) ?? '99';
}
