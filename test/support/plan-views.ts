import type { PlanPageView } from '../../src/http/pages/plan-page';

const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });

/**
 * A deposit plan as the payment page shows it: R$ 15.000,00, a 30 % deposit due (Pix, or card
 * in up to 12 installments, or split two ways) and its balance due on 15 January 2027.
 */
export const DEPOSIT_PLAN: PlanPageView = {
  checkoutId: 'chk_marcenaria-demo_0123456789abcdef01234567',
  serviceId: 1004,
  storefront: { name: 'Marcenaria Demo', siteUrl: 'https://marcenaria.example/pedidos' },
  order: BRL(1_500_000),
  parts: [
    {
      part: 'deposit',
      amount: BRL(450_000),
      state: 'due',
      methods: [{ method: 'pix' }, { method: 'card', maxInstallments: 12 }],
      splitTender: true,
    },
    {
      part: 'balance',
      amount: BRL(1_050_000),
      state: 'due',
      dueDate: '2027-01-15',
      methods: [{ method: 'pix' }, { method: 'boleto' }],
    },
  ],
};
