import { randomBytes } from 'node:crypto';
import { cardOf } from '../payment-facts';
import { sandboxKey } from './sandbox-keys';
import { runScript } from '../../redis/redis-scripts';
import type { RedisCommands } from '../../redis/redis';
import { brasiliaDay, type ChargeLine, type Money } from '../money';
import { optionsFor, type PaymentOptions } from '../payment-offer';
import {
  isPaidWith,
  type CheckoutRequest,
  type CreatedCheckout,
  type PaidWith,
  type PaymentProvider,
  type PaymentState,
  type PaymentStatus,
  type WebhookHint,
} from '../payment-provider';

/** A sandbox payment as its page shows it. */
export interface SandboxPayment {
  checkoutId: string;
  serviceId: number;
  description: string;
  amount: Money;
  lines: ChargeLine[];
  state: PaymentState;
  transactionId?: string;
  /** How the customer paid or is paying: the page's button (Pay: card, Pix, boleto). */
  method?: PaidWith;
  expiresAt: string;
  returnUrl: string;
  cancelUrl: string;
  /** How the customer may pay (absent in payments made before the options existed). */
  options?: PaymentOptions;
  /** When it was paid (milliseconds, the hash's `paidAt`; absent before this release kept it). */
  paidAt?: string;
}

// Creates once, so a re-run of the checkout job returns the same payment.
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'data', ARGV[1], 'state', 'pending')
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

// Settles a pending payment, or one processing (Pix, boleto) with a final outcome; anything
// else is left as it is and returned. The method (ARGV[5], '' for none) is the one the customer
// chose on a pending payment: confirming or declining one under way keeps its own.
const SETTLE = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return false end
if state == 'pending' or (state == 'processing' and ARGV[1] ~= 'processing') then
  -- A Pix already under way is confirmed even after the link expired: the money came.
  if state == 'pending' and tonumber(ARGV[3]) > tonumber(ARGV[4]) then
    redis.call('HSET', KEYS[1], 'state', 'expired')
    return 'expired'
  end
  redis.call('HSET', KEYS[1], 'state', ARGV[1], 'transactionId', ARGV[2])
  if ARGV[1] == 'paid' then redis.call('HSET', KEYS[1], 'paidAt', ARGV[3]) end
  if state == 'pending' and ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'method', ARGV[5]) end
  return ARGV[1]
end
return state`;

// What may happen after an outcome, as a real provider's dashboard or bank makes it happen: a
// paid payment refunded or charged back; an expired or declined one paid late. Anything else is
// left as it is and returned.
const AFTER = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return false end
local expired = state == 'pending' and tonumber(ARGV[3]) > tonumber(ARGV[4])
if (ARGV[1] == 'refunded' or ARGV[1] == 'charged_back') and state == 'paid' then
  redis.call('HSET', KEYS[1], 'state', ARGV[1])
  return ARGV[1]
end
if ARGV[1] == 'paid' and (expired or state == 'expired' or state == 'failed' or state == 'canceled') then
  redis.call('HSET', KEYS[1], 'state', 'paid', 'transactionId', ARGV[2], 'paidAt', ARGV[3])
  return 'paid'
end
return state`;

const RETENTION_MS = 30 * 86_400_000;

/**
 * The built-in provider: the connector serves the payment page itself, and its Pay and
 * Decline buttons feed the same outcome path a real provider's webhook does.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';

  constructor(
    private readonly redis: RedisCommands,
    private readonly options: {
      prefix: string;
      shop: string;
      publicUrl: string;
      payment?: PaymentOptions;
      now?: () => Date;
    },
  ) {}

  private key(checkoutId: string): string {
    return sandboxKey(this.options.prefix, this.options.shop, checkoutId);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
    const payment: Omit<SandboxPayment, 'state'> = {
      checkoutId: request.checkoutId,
      serviceId: request.serviceId,
      description: request.description,
      amount: request.amount,
      lines: request.lines,
      expiresAt: request.expiresAt.toISOString(),
      returnUrl: request.returnUrl,
      cancelUrl: request.cancelUrl,
      ...(this.options.payment
        ? { options: optionsFor(this.options.payment, request.methods) }
        : request.methods
          ? { options: { methods: [...request.methods], maxInstallments: 1 } }
          : {}),
    };
    await runScript(
      this.redis,
      CREATE,
      1,
      this.key(request.checkoutId),
      JSON.stringify(payment),
      RETENTION_MS,
    );
    return {
      providerRef: `sbx_${request.checkoutId}`,
      url: `${this.options.publicUrl}/sandbox/checkout/${encodeURIComponent(request.checkoutId)}`,
    };
  }

  async payment(checkoutId: string): Promise<SandboxPayment | undefined> {
    const fields = await this.redis.hgetall(this.key(checkoutId));
    if (!fields.data || !fields.state) return undefined;
    const data = JSON.parse(fields.data) as Omit<SandboxPayment, 'state'>;
    const expired = fields.state === 'pending' && Date.parse(data.expiresAt) < this.now().getTime();
    const method = isPaidWith(fields.method) ? fields.method : undefined;
    return {
      ...data,
      state: expired ? 'expired' : (fields.state as PaymentState),
      transactionId: fields.transactionId,
      ...(method ? { method } : {}),
      ...(fields.paidAt ? { paidAt: fields.paidAt } : {}),
    };
  }

  /** The page's buttons: pay (a Pix or boleto is processing until confirmed) or decline. */
  async settle(
    checkoutId: string,
    outcome: 'paid' | 'failed' | 'processing',
    method?: PaidWith,
  ): Promise<PaymentState | undefined> {
    const transactionId = `sbx_pay_${randomBytes(8).toString('hex')}`;
    const state = (await runScript(
      this.redis,
      SETTLE,
      1,
      this.key(checkoutId),
      outcome,
      transactionId,
      this.now().getTime(),
      await this.expiresAtMs(checkoutId),
      method ?? '',
    )) as PaymentState | null;
    return state ?? undefined;
  }

  async after(
    checkoutId: string,
    what: 'refunded' | 'charged_back' | 'paid',
  ): Promise<PaymentState | undefined> {
    const state = (await runScript(
      this.redis,
      AFTER,
      1,
      this.key(checkoutId),
      what,
      `sbx_pay_${randomBytes(8).toString('hex')}`,
      this.now().getTime(),
      await this.expiresAtMs(checkoutId),
    )) as PaymentState | null;
    return state ?? undefined;
  }

  /**
   * Gives a paid payment back, as a real provider's refund API does: the payment reads refunded
   * after it (and asking again changes nothing); undefined when nothing was paid.
   */
  async refundPayment(ref: { checkoutId: string }): Promise<string | undefined> {
    const state = await this.after(ref.checkoutId, 'refunded');
    return state === 'refunded' ? 'refunded in the sandbox' : undefined;
  }

  private async expiresAtMs(checkoutId: string): Promise<number> {
    const data = await this.redis.hget(this.key(checkoutId), 'data');
    return data ? Date.parse((JSON.parse(data) as SandboxPayment).expiresAt) : 0;
  }

  async getStatus(ref: { providerRef: string; checkoutId: string }): Promise<PaymentStatus> {
    const payment = await this.payment(ref.checkoutId);
    if (!payment) return { state: 'expired', reason: 'unknown sandbox payment' };
    const method = payment.method ? { method: payment.method } : {};
    if (payment.state === 'failed') {
      return { state: 'failed', reason: 'declined in the sandbox', ...method };
    }
    if (payment.state === 'refunded' || payment.state === 'charged_back') {
      const reason =
        payment.state === 'refunded' ? 'refunded in the sandbox' : 'charged back in the sandbox';
      return {
        state: payment.state,
        transactionId: payment.transactionId,
        reason,
        ...method,
        ...this.money(payment),
      };
    }
    const money = payment.state === 'paid' ? this.money(payment) : {};
    return { state: payment.state, transactionId: payment.transactionId, ...method, ...money };
  }

  /**
   * What the sandbox collected: the figures of a payment record filled, for a developer (a card
   * is the test Visa ending 4242, its authorization code made of the payment's id). No payer and
   * no institution: the sandbox knows no one, and no money moves.
   */
  private money(payment: SandboxPayment): Pick<PaymentStatus, 'amount' | 'settlement'> {
    const { amount } = payment;
    const paidAt = payment.paidAt ? new Date(Number(payment.paidAt)) : undefined;
    const code = payment.transactionId
      ?.replace(/^sbx_pay_/, '')
      .slice(0, 6)
      .toUpperCase();
    return {
      amount,
      settlement: {
        providerFee: { amountMinor: 0, currency: amount.currency },
        net: amount,
        releaseDate: brasiliaDay(this.now()),
        installments: 1,
        ...(paidAt && !Number.isNaN(paidAt.getTime()) ? { paidAt: paidAt.toISOString() } : {}),
        ...(payment.method === 'card'
          ? cardOf({ brand: 'visa', last4: '4242', funding: 'credit', authorizationCode: code })
          : {}),
      },
    };
  }

  async cancelCheckout(ref: { providerRef: string; checkoutId: string }): Promise<void> {
    await runScript(
      this.redis,
      `if redis.call('HGET', KEYS[1], 'state') == 'pending' then redis.call('HSET', KEYS[1], 'state', 'expired') end return 1`,
      1,
      this.key(ref.checkoutId),
    );
  }

  async parseWebhook(): Promise<WebhookHint> {
    return { ignore: 'the sandbox has no webhooks: its page reports outcomes directly' };
  }
}
