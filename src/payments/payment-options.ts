import { z } from 'zod';
import {
  MAX_EXPIRY_MINUTES,
  MAX_INSTALLMENTS,
  MIN_EXPIRY_MINUTES,
  offeredOptions,
  offerProblems,
  PAYMENT_METHODS,
  type PaymentChoice,
  type PaymentOptions,
} from './payment-offer';
import { PROVIDERS, type ProviderName } from './providers';

export {
  MAX_EXPIRY_MINUTES,
  MAX_INSTALLMENTS,
  MIN_EXPIRY_MINUTES,
  PAYMENT_METHODS,
  type PaymentChoice,
  type PaymentMethod,
  type PaymentOptions,
} from './payment-offer';

/**
 * How a shop's customers may pay (CONTRACT: PAYMENT_METHODS, CARD_MAX_INSTALLMENTS,
 * CHECKOUT_EXPIRY_MINUTES; a shop's document's `payment`): a choice its provider cannot honour (its
 * descriptor's offer, payment-offer.ts) is refused, saying why, at start or when the shop is saved.
 */
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

export const paymentDocumentSchema = z.strictObject({
  methods: z
    .array(paymentMethodSchema)
    .min(1, 'must name at least one method')
    .transform((methods) => [...new Set(methods)])
    .meta({
      env: 'PAYMENT_METHODS',
      description:
        'The methods its customers may pay with, a subset of `["pix", "card", "boleto"]`; absent: all its provider offers.',
    })
    .optional(),
  maxInstallments: installments(z.number())
    .meta({
      env: 'CARD_MAX_INSTALLMENTS',
      description: `The most card installments offered, 1 to ${MAX_INSTALLMENTS}, where the provider can split a card payment.`,
    })
    .optional(),
  expiryMinutes: expiry(z.number())
    .meta({
      env: 'CHECKOUT_EXPIRY_MINUTES',
      description: `How long a checkout stays payable, in minutes: ${MIN_EXPIRY_MINUTES} to ${MAX_EXPIRY_MINUTES} (30 days), and at most what the provider allows.`,
    })
    .optional(),
});

export type PaymentDocument = z.output<typeof paymentDocumentSchema>;

/** The variable of each part of the env shop's payment choice, as the schema's metadata says. */
export const PAYMENT_VARIABLES = Object.fromEntries(
  Object.entries(paymentDocumentSchema.shape).map(([part, schema]) => [
    part,
    String((schema.unwrap().meta() as { env?: string } | undefined)?.env),
  ]),
) as Record<keyof PaymentDocument, string>;

export function paymentChoiceProblems(
  provider: ProviderName,
  choice: PaymentChoice,
): Array<{ part: keyof PaymentChoice; problem: string }> {
  return offerProblems(provider, PROVIDERS[provider].offer, choice);
}

export function paymentOptionsOf(
  provider: ProviderName,
  choice: PaymentChoice = {},
): PaymentOptions {
  return offeredOptions(PROVIDERS[provider].offer, choice);
}

/**
 * How long a shop's checkouts stay payable: its own choice, or the deployment's
 * (CHECKOUT_EXPIRY_MINUTES) shortened to what its provider accepts.
 */
export function expiryMinutesOf(
  provider: ProviderName,
  shopMinutes: number | undefined,
  deploymentMinutes: number,
): number {
  return shopMinutes ?? Math.min(deploymentMinutes, PROVIDERS[provider].offer.maxExpiryMinutes);
}
