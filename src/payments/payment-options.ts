import { z } from 'zod';

/**
 * How a shop's customers may pay (CONTRACT: PAYMENT_METHODS, CARD_MAX_INSTALLMENTS,
 * CHECKOUT_EXPIRY_MINUTES; a shop's document's `payment`), and what each provider can honour.
 * Each adapter maps the options to its own fields (Stripe `payment_method_types`, Mercado Pago
 * `payment_methods`, Asaas `billingTypes`/`chargeTypes`); a choice a provider cannot honour is
 * refused, saying why, at start or when the shop is saved.
 */
export const PAYMENT_METHODS = ['pix', 'card', 'boleto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** The options a checkout is made with. */
export interface PaymentOptions {
  methods: PaymentMethod[];
  /** Installments a card payment may be split into; 1: in one payment. */
  maxInstallments: number;
}

/** A choice as a shop or the environment gives it: every part optional. */
export interface PaymentChoice {
  methods?: PaymentMethod[];
  maxInstallments?: number;
  expiryMinutes?: number;
}

/** The longest a checkout may stay payable with any provider: 30 days. */
export const MAX_EXPIRY_MINUTES = 30 * 24 * 60;
export const MIN_EXPIRY_MINUTES = 5;
export const MAX_INSTALLMENTS = 12;

/** What one provider offers, and why it offers no more. */
interface ProviderOffer {
  methods: readonly PaymentMethod[];
  maxInstallments: number;
  maxExpiryMinutes: number;
  why: { methods?: string; installments?: string; expiry?: string };
}

type OfferedBy = 'sandbox' | 'stripe' | 'mercadopago' | 'asaas';

export const PROVIDER_OFFERS: Record<OfferedBy, ProviderOffer> = {
  // The sandbox plays any provider: every method, installments, any window.
  sandbox: {
    methods: PAYMENT_METHODS,
    maxInstallments: MAX_INSTALLMENTS,
    maxExpiryMinutes: MAX_EXPIRY_MINUTES,
    why: {},
  },
  stripe: {
    methods: PAYMENT_METHODS,
    maxInstallments: 1,
    maxExpiryMinutes: 24 * 60,
    why: {
      installments:
        'Stripe cannot split a card payment in BRL (its installments exist only for cards of Mexico and Japan)',
      expiry:
        'a Stripe Checkout Session stays open at most 24 hours (a boleto issued in it is then paid within its own days, the checkout processing meanwhile)',
    },
  },
  mercadopago: {
    methods: PAYMENT_METHODS,
    maxInstallments: MAX_INSTALLMENTS,
    maxExpiryMinutes: MAX_EXPIRY_MINUTES,
    why: {},
  },
  asaas: {
    methods: ['pix', 'card'],
    maxInstallments: MAX_INSTALLMENTS,
    maxExpiryMinutes: MAX_EXPIRY_MINUTES,
    why: { methods: 'Asaas Checkout offers Pix and card only' },
  },
};

export const paymentMethodSchema = z.enum(PAYMENT_METHODS, {
  error: `must be ${PAYMENT_METHODS.join(', ')}`,
});

/** PAYMENT_METHODS: `pix,card`. */
export const paymentMethodsVariable = z
  .string()
  .regex(/^[a-z]+(,[a-z]+)*$/, 'must be a comma-separated list of pix, card and boleto')
  .transform((text) => [...new Set(text.split(','))])
  .pipe(z.array(paymentMethodSchema));

const installments = (n: z.ZodNumber) =>
  n.int().min(1).max(MAX_INSTALLMENTS, `must be at most ${MAX_INSTALLMENTS}`);
const expiry = (n: z.ZodNumber) =>
  n
    .int()
    .min(MIN_EXPIRY_MINUTES, `must be at least ${MIN_EXPIRY_MINUTES}`)
    .max(MAX_EXPIRY_MINUTES, `must be at most ${MAX_EXPIRY_MINUTES} (30 days)`);

/** CARD_MAX_INSTALLMENTS and CHECKOUT_EXPIRY_MINUTES, read from text. */
export const maxInstallmentsVariable = installments(z.coerce.number());
export const expiryMinutesVariable = expiry(z.coerce.number());

/** A shop document's `payment`. */
export const paymentDocumentSchema = z.strictObject({
  methods: z
    .array(paymentMethodSchema)
    .min(1, 'must name at least one method')
    .transform((methods) => [...new Set(methods)])
    .optional(),
  maxInstallments: installments(z.number()).optional(),
  expiryMinutes: expiry(z.number()).optional(),
});

export type PaymentDocument = z.output<typeof paymentDocumentSchema>;

/** What `provider` cannot honour of `choice`, one problem per part. */
export function paymentChoiceProblems(
  provider: OfferedBy,
  choice: PaymentChoice,
): Array<{ part: keyof PaymentChoice; problem: string }> {
  const offer = PROVIDER_OFFERS[provider];
  const problems: Array<{ part: keyof PaymentChoice; problem: string }> = [];
  const missing = (choice.methods ?? []).filter((method) => !offer.methods.includes(method));
  if (missing.length > 0) {
    problems.push({
      part: 'methods',
      problem: `${provider} cannot take ${missing.join(', ')}${offer.why.methods ? `: ${offer.why.methods}` : ''}`,
    });
  }
  const installments = choice.maxInstallments ?? 1;
  if (installments > offer.maxInstallments) {
    problems.push({
      part: 'maxInstallments',
      problem: `${provider} allows at most ${offer.maxInstallments}${offer.why.installments ? `: ${offer.why.installments}` : ''}`,
    });
  } else if (installments > 1 && choice.methods && !choice.methods.includes('card')) {
    problems.push({ part: 'maxInstallments', problem: 'installments need card among the methods' });
  }
  // Beyond what any provider allows is the schema's to say (the range of the value itself).
  const expiry = choice.expiryMinutes ?? 0;
  if (expiry > offer.maxExpiryMinutes && expiry <= MAX_EXPIRY_MINUTES) {
    problems.push({
      part: 'expiryMinutes',
      problem: `${provider} allows at most ${offer.maxExpiryMinutes} minutes${offer.why.expiry ? `: ${offer.why.expiry}` : ''}`,
    });
  }
  return problems;
}

/** The options a provider makes checkouts with: the choice, or what the provider offers. */
export function paymentOptionsOf(provider: OfferedBy, choice: PaymentChoice = {}): PaymentOptions {
  return {
    methods: [...(choice.methods ?? PROVIDER_OFFERS[provider].methods)],
    maxInstallments: choice.maxInstallments ?? 1,
  };
}

/**
 * How long a shop's checkouts stay payable: its own choice, or the deployment's
 * (CHECKOUT_EXPIRY_MINUTES) shortened to what its provider accepts.
 */
export function expiryMinutesOf(
  provider: OfferedBy,
  shopMinutes: number | undefined,
  deploymentMinutes: number,
): number {
  return shopMinutes ?? Math.min(deploymentMinutes, PROVIDER_OFFERS[provider].maxExpiryMinutes);
}
