import type { ProviderApi } from '../provider-api';
import { MAX_EXPIRY_MINUTES, MAX_INSTALLMENTS, type ProviderOffer } from '../payment-offer';

/**
 * Asaas's API with its `/v3` (docs.asaas.com, "Authentication" and the Postman guide):
 * production https://api.asaas.com/v3, sandbox https://api-sandbox.asaas.com/v3 (a separate
 * account and key). Asaas's older pages name the sandbox https://sandbox.asaas.com/api/v3:
 * that origin is Asaas's too.
 */
export const ASAAS_API: ProviderApi = {
  label: 'Asaas',
  production: 'https://api.asaas.com/v3',
  sandbox: 'https://api-sandbox.asaas.com/v3',
  alsoOfficial: ['https://sandbox.asaas.com'],
  institution: {
    name: 'ASAAS Gestão Financeira Instituição de Pagamento S.A.',
    cnpj: '19540550000121',
    source:
      'https://ajuda.asaas.com/pt-BR/articles/1369992-termo-aditivo-antecipacao-de-recebiveis ("inscrita no CNPJ sob o nº 19.540.550/0001-21")',
  },
};

export const ASAAS_OFFER: ProviderOffer = {
  methods: ['pix', 'card'],
  maxInstallments: MAX_INSTALLMENTS,
  maxExpiryMinutes: MAX_EXPIRY_MINUTES,
  refunds: ['pix', 'card'],
  why: {
    methods: 'Asaas Checkout offers Pix and card only',
  },
};
