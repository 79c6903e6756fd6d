import type { ProviderApi } from '../provider-api';
import { PAYMENT_METHODS, type ProviderOffer } from '../payment-offer';

/**
 * Stripe's API (docs.stripe.com/api): one host; a test key (sk_test_, rk_test_) selects test
 * mode on it. Kept apart from stripe-provider.ts, which loads the SDK.
 */
export const STRIPE_API: ProviderApi = {
  label: 'Stripe',
  production: 'https://api.stripe.com',
  noSandbox:
    'Stripe has one API host (https://api.stripe.com): a test key (sk_test_...) selects test mode',
  // Stripe's Brazilian payment institution, which processes a Brazilian account's payments in
  // BRL. Stripe's own pages name it ("Stripe Brasil Soluções de Pagamento Ltda.", its risk and
  // capital policy) without its CNPJ; the CNPJ is the Central Bank's register's.
  institution: {
    name: 'Stripe Brasil Soluções de Pagamento – Instituição de Pagamento Ltda.',
    cnpj: '22121209000146',
    source:
      "Banco Central do Brasil's register of payment institutions (STRIPE BRASIL SOLUCOES DE PAGAMENTO INSTITUICAO DE PAGAMENTO LTDA, 22.121.209/0001-46)",
  },
};

/** What Stripe Checkout offers in BRL. */
export const STRIPE_OFFER: ProviderOffer = {
  methods: PAYMENT_METHODS,
  maxInstallments: 1,
  maxExpiryMinutes: 24 * 60,
  refunds: ['card', 'pix'],
  why: {
    refunds: 'Stripe does not refund a boleto (the shop returns the money by hand)',
    installments:
      'Stripe cannot split a card payment in BRL (its installments exist only for cards of Mexico and Japan)',
    expiry:
      'a Stripe Checkout Session stays open at most 24 hours (a boleto issued in it is then paid within its own days, the checkout processing meanwhile)',
  },
};
