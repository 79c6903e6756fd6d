import { z } from 'zod';
import { offeredOptions, type PaymentChoice, type PaymentMethod } from './payment-offer';
import { PROVIDERS, type ProviderName } from './providers';

/*
 * A shop's plan (CONTRACT "The payment page", "Plans"): a deposit now and the balance later,
 * and whether a part may be paid two ways. A shop with a plan is paid on the connector's own page
 * (`GET /pay/:checkoutId`); the money of it is src/checkout/plan-money.ts's.
 */

/** Days a balance may be due after its checkout was opened: a year at most. */
export const MAX_BALANCE_DUE_DAYS = 365;
const DEFAULT_BALANCE_DUE_DAYS = 30;

const percentSchema = z
  .number()
  .min(1, 'must be 1 to 99')
  .max(99, 'must be 1 to 99')
  .refine((percent) => Math.abs(percent * 100 - Math.round(percent * 100)) < 1e-9, {
    message: 'takes at most two decimals (12.5, 33.33)',
  });

export const planDocumentSchema = z.strictObject({
  deposit: z
    .strictObject({ percent: percentSchema })
    .meta({
      env: 'SHOP_PLAN_DEPOSIT_PERCENT',
      description:
        'The deposit ("sinal"), `{"percent": 30}`: 1 to 99 percent of the order, two decimals at most; the rest is the balance. Absent: paid in one part.',
    })
    .optional(),
  finishOn: z
    .enum(['deposit', 'full'], { error: 'must be deposit or full' })
    .default('deposit')
    .meta({
      env: 'SHOP_PLAN_FINISH_ON',
      description:
        '`deposit`: the platform hears the finish once the deposit is paid (production starts); `full`: once every part is.',
    }),
  balanceDueDays: z
    .number()
    .int('must be a whole number of days')
    .min(0, 'must be 0 or more')
    .max(MAX_BALANCE_DUE_DAYS, `must be at most ${MAX_BALANCE_DUE_DAYS}`)
    .default(DEFAULT_BALANCE_DUE_DAYS)
    .meta({
      env: 'SHOP_PLAN_BALANCE_DUE_DAYS',
      description: `Days after the order's checkout opened by which its balance is due (shown on the page): 0 to ${MAX_BALANCE_DUE_DAYS}, ${DEFAULT_BALANCE_DUE_DAYS} when absent.`,
    }),
  splitTender: z.boolean().default(false).meta({
    env: 'SHOP_PLAN_SPLIT_TENDER',
    description:
      'Whether a part may be paid two ways (two cards, Pix and card): the first amount chosen by the customer, at least R$ 1,00 each.',
  }),
});

export type PlanDocument = z.output<typeof planDocumentSchema>;

/** Whether the plan asks for the connector's page: a deposit, or a part paid two ways. */
export function planNeedsPage(plan: PlanDocument | undefined): plan is PlanDocument {
  return plan !== undefined && (plan.deposit !== undefined || plan.splitTender);
}

/**
 * What a provider cannot do of a plan: the parts of one expiring undone are refunded, so every
 * method the shop offers must be one the provider refunds through the connector.
 */
export function planProblems(
  provider: ProviderName,
  plan: PlanDocument | undefined,
  choice: PaymentChoice,
): Array<{ part: keyof PlanDocument; problem: string }> {
  if (!planNeedsPage(plan)) return [];
  const { offer } = PROVIDERS[provider];
  const methods: readonly PaymentMethod[] = offeredOptions(offer, choice).methods;
  const unrefunded = methods.filter((method) => !offer.refunds.includes(method));
  if (unrefunded.length === 0) return [];
  const part = plan.splitTender && !plan.deposit ? 'splitTender' : 'deposit';
  return [
    {
      part,
      problem: `needs refunds through the provider (a plan that expires undone gives its paid parts back): ${provider} cannot refund ${unrefunded.join(', ')}${offer.why.refunds ? ` (${offer.why.refunds})` : ''}; leave ${unrefunded.length > 1 ? 'them' : 'it'} out of payment.methods`,
    },
  ];
}
