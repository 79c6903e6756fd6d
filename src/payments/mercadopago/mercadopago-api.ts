import type { ProviderApi } from '../provider-api';
import {
  MAX_EXPIRY_MINUTES,
  MAX_INSTALLMENTS,
  PAYMENT_METHODS,
  type ProviderOffer,
} from '../payment-offer';

/**
 * Mercado Pago's API (its reference: "Base URL https://api.mercadopago.com"): one host; test
 * credentials (TEST-... or a test user's) select the test environment.
 */
export const MERCADOPAGO_API: ProviderApi = {
  label: 'Mercado Pago',
  production: 'https://api.mercadopago.com',
  noSandbox:
    'Mercado Pago has one API host (https://api.mercadopago.com): test credentials select its test environment',
  institution: {
    name: 'Mercado Pago Instituição de Pagamento Ltda.',
    cnpj: '10573521000191',
    source:
      'https://www.mercadopago.com.br/ajuda/condicoes-gerais-da-antecipacao-de-dinheiro_2584 ("inscrita no CNPJ sob nº 10.573.521/0001-91")',
  },
};

export const MERCADOPAGO_OFFER: ProviderOffer = {
  methods: PAYMENT_METHODS,
  maxInstallments: MAX_INSTALLMENTS,
  maxExpiryMinutes: MAX_EXPIRY_MINUTES,
  refunds: ['card', 'pix'],
  why: {
    refunds:
      "Mercado Pago's refund reference does not say how a boleto is given back: the shop refunds it in Mercado Pago's dashboard",
  },
};
