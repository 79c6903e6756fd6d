/**
 * The words of payment options (CONTRACT: PAYMENT_METHODS, CARD_MAX_INSTALLMENTS,
 * CHECKOUT_EXPIRY_MINUTES), and what one provider offers of them. Each provider's descriptor
 * (src/payments/<name>/) declares its offer; payment-options.ts reads a shop's choice against it.
 */
export const PAYMENT_METHODS = ['pix', 'card', 'boleto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

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
export interface ProviderOffer {
  methods: readonly PaymentMethod[];
  maxInstallments: number;
  maxExpiryMinutes: number;
  /**
   * The methods whose payments the connector can give back through the provider's API (its
   * adapter's `refundPayment`; none: it cannot): a plan's parts are refunded when its checkout
   * expires undone, so a plan's methods must be among them.
   */
  refunds: readonly PaymentMethod[];
  why: { methods?: string; installments?: string; expiry?: string; refunds?: string };
}

/** What `provider` (its name, as messages say it) cannot honour of `choice`, one problem per part. */
export function offerProblems(
  provider: string,
  offer: ProviderOffer,
  choice: PaymentChoice,
): Array<{ part: keyof PaymentChoice; problem: string }> {
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

/**
 * The options of one checkout: the shop's, narrowed to the methods its request names (a part of a
 * plan paid one way, `CheckoutRequest.methods`).
 */
export function optionsFor(
  options: PaymentOptions,
  methods: readonly PaymentMethod[] | undefined,
): PaymentOptions {
  if (!methods) return options;
  return { ...options, methods: options.methods.filter((method) => methods.includes(method)) };
}

/** The options checkouts are made with under `offer`: the choice, or all the offer's methods. */
export function offeredOptions(offer: ProviderOffer, choice: PaymentChoice = {}): PaymentOptions {
  return {
    methods: [...(choice.methods ?? offer.methods)],
    maxInstallments: choice.maxInstallments ?? 1,
  };
}
