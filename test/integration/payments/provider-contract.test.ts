import { randomBytes } from 'node:crypto';
import { newCheckoutId } from '../../../src/checkout/checkout-record';
import {
  closeRedis,
  createRedis,
  waitForRedis,
  type RedisCommands,
} from '../../../src/redis/redis';
import { PAYMENT_METHODS, type PaymentMethod } from '../../../src/payments/payment-offer';
import type {
  CheckoutRequest,
  PaymentProvider,
  WebhookHint,
} from '../../../src/payments/payment-provider';
import { PROVIDERS, type ProviderName } from '../../../src/payments/providers';
import type { ProviderFake } from '../../support/provider-suite';
import {
  providerModuleOf,
  TEST_PROVIDER_LIST,
  type ContractDriver,
  type TestProvider,
} from '../../support/providers';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * The contract every payment adapter keeps, for each provider of the test registry: the adapter
 * the connector builds for a shop aimed at the provider's fake (its descriptor's `build`, from
 * the row's variables), and the row's hand at the fake.
 */

let redis: TestRedis;
let connection: RedisCommands;
beforeAll(async () => {
  redis = await startTestRedis();
  connection = createRedis(redis.url, 'producer', 'contract');
  await waitForRedis(connection, 5000);
});
afterAll(async () => {
  await closeRedis(connection);
  await redis.close();
});

/** The adapter built for a shop of `env` at the row's started fake, and the row's hand at it. */
function shopAt(
  row: TestProvider,
  fake: ProviderFake,
  env: Record<string, string>,
): { provider: PaymentProvider; driver: ContractDriver } {
  const prefix = `c${randomBytes(4).toString('hex')}`;
  const built = providerModuleOf(env, {
    redis: connection,
    prefix,
    shop: 'default',
    scope: 'default',
    publicUrl: 'http://127.0.0.1:9',
  });
  return { provider: built.provider, driver: row.contract.driver(fake, built) };
}

/** The row's fake, started; the adapter built for it; the row's hand at it. */
async function contractWorld(
  row: TestProvider,
): Promise<{ fake: ProviderFake; provider: PaymentProvider; driver: ContractDriver }> {
  const fake = row.fake();
  await fake.start();
  return { fake, ...shopAt(row, fake, row.env(fake)) };
}

/** The methods a shop of `env` offers: its PAYMENT_METHODS, or all its provider offers. */
function shopMethods(env: Record<string, string>, row: TestProvider): readonly PaymentMethod[] {
  const named = env.PAYMENT_METHODS?.split(',');
  return named
    ? PAYMENT_METHODS.filter((method) => named.includes(method))
    : PROVIDERS[row.name].offer.methods;
}

/** In one order, whatever order a provider keeps them in. */
const sorted = (methods: readonly PaymentMethod[]): PaymentMethod[] => [...methods].sort();

/**
 * When the checkouts open and end: one instant each for the run, as a checkout's record keeps them
 * for every attempt (a new one per call made a repeat across a second's edge a different request).
 */
const OPENED_AT = new Date();
const EXPIRES_AT = new Date(OPENED_AT.getTime() + 3_600_000);

const request = (checkoutId: string, methods?: readonly PaymentMethod[]): CheckoutRequest => ({
  ...(methods ? { methods } : {}),
  checkoutId,
  serviceId: 1001,
  amount: { amountMinor: 53_035, currency: 'BRL' },
  lines: [{ label: 'Corte', amountMinor: 53_035 }],
  description: 'Pedido 1001',
  returnUrl: `http://127.0.0.1:9/return/x?checkout_id=${checkoutId}`,
  cancelUrl: `http://127.0.0.1:9/return/x?checkout_id=${checkoutId}&cancelled=1`,
  createdAt: OPENED_AT,
  expiresAt: EXPIRES_AT,
});

describe.each(TEST_PROVIDER_LIST.map((row) => [row.name, row] as const))(
  'the payment provider contract: %s',
  (_name, row) => {
    const { offers, forgeries } = row.contract;
    let world: Awaited<ReturnType<typeof contractWorld>>;
    let driver: ContractDriver;
    beforeAll(async () => {
      world = await contractWorld(row);
      ({ driver } = world);
    });
    afterAll(() => world?.fake.stop());

    async function created() {
      const checkoutId = newCheckoutId();
      const checkout = await world.provider.createCheckout(request(checkoutId));
      return { checkoutId, ...checkout };
    }
    const status = (c: { checkoutId: string; providerRef: string }) =>
      world.provider.getStatus({ checkoutId: c.checkoutId, providerRef: c.providerRef });

    it('creates a checkout with a URL, once per checkout id', async () => {
      const checkoutId = newCheckoutId();
      const first = await world.provider.createCheckout(request(checkoutId));
      const again = await world.provider.createCheckout(request(checkoutId));
      expect(first.url).toMatch(/^https?:\/\//);
      expect(again).toEqual(first);
    });

    it('is pending until paid, then paid with a transaction id and the amount', async () => {
      const c = await created();
      expect((await status(c)).state).toBe('pending');
      await driver.pay(c.checkoutId, c.providerRef);
      const paid = await status(c);
      expect(paid).toMatchObject({ state: 'paid', transactionId: expect.any(String) });
      if (paid.amount) expect(paid.amount).toEqual({ amountMinor: 53_035, currency: 'BRL' });
    });

    // A case a provider's checkout does not offer is not declared for it (none is skipped).
    if (offers.pixUnderWay) {
      it('is processing while a Pix is under way, then paid', async () => {
        const c = await created();
        await driver.startPix(c.checkoutId, c.providerRef);
        expect((await status(c)).state).toBe('processing');
        await driver.confirmPix(c.checkoutId, c.providerRef);
        expect((await status(c)).state).toBe('paid');
      });
    }

    if (offers.card) {
      it('says a payment by card was made by card', async () => {
        const card = await created();
        expect((await status(card)).method).toBeUndefined();
        await driver.pay(card.checkoutId, card.providerRef);
        expect(await status(card)).toMatchObject({ state: 'paid', method: 'card' });
      });
    }

    it('says a payment by Pix was made by Pix (under way first, where it can be)', async () => {
      const pix = await created();
      await driver.startPix(pix.checkoutId, pix.providerRef);
      if (offers.pixUnderWay) {
        expect(await status(pix)).toMatchObject({ state: 'processing', method: 'pix' });
      } else {
        expect(await status(pix)).toEqual({ state: 'pending' });
      }
      await driver.confirmPix(pix.checkoutId, pix.providerRef);
      expect(await status(pix)).toMatchObject({ state: 'paid', method: 'pix' });
    });

    if (offers.boleto) {
      it('says a boleto issued is under way, by boleto', async () => {
        const boleto = await created();
        expect(driver.issueBoleto).toBeDefined();
        await driver.issueBoleto?.(boleto.checkoutId, boleto.providerRef);
        expect(await status(boleto)).toMatchObject({ state: 'processing', method: 'boleto' });
      });
    }

    it('says refunded once a paid payment is refunded, naming the payment', async () => {
      const c = await created();
      await driver.pay(c.checkoutId, c.providerRef);
      const paid = await status(c);
      await driver.refund(c.checkoutId, c.providerRef);
      expect(await status(c)).toMatchObject({
        state: 'refunded',
        transactionId: paid.transactionId,
        reason: expect.any(String),
      });
    });

    it('declares in its offer whether it gives payments back, as its adapter does', () => {
      expect(typeof world.provider.refundPayment === 'function').toBe(
        PROVIDERS[row.name as ProviderName].offer.refunds.length > 0,
      );
    });

    if (PROVIDERS[row.name as ProviderName].offer.refunds.length > 0) {
      it('gives a paid payment back when asked: nothing when unpaid, refunded after, once', async () => {
        const c = await created();
        const ref = { checkoutId: c.checkoutId, providerRef: c.providerRef };
        expect(await world.provider.refundPayment?.(ref, 'plan_expired')).toBeUndefined();
        await driver.pay(c.checkoutId, c.providerRef);
        const paid = await status(c);
        expect(await world.provider.refundPayment?.(ref, 'plan_expired')).toEqual(
          expect.any(String),
        );
        await driver.settleRefunds?.(c.checkoutId, c.providerRef);
        const refunded = await status(c);
        expect(refunded).toMatchObject({ state: 'refunded', transactionId: paid.transactionId });
        // Asked again (a retried job): still one refund, the payment as it was.
        expect(await world.provider.refundPayment?.(ref, 'plan_expired')).toEqual(
          expect.any(String),
        );
        await driver.settleRefunds?.(c.checkoutId, c.providerRef);
        expect(await status(c)).toEqual(refunded);
        // One refund in the provider's own records (the sandbox's refund is a state alone).
        if (driver.refundsMade) {
          expect(await driver.refundsMade(c.checkoutId, c.providerRef)).toBe(1);
        } else {
          expect(row.name).toBe('sandbox');
        }
      });
    }

    /** A new checkout of `shop`'s, naming `methods` (or none): what its provider offers there. */
    async function offeredAt(
      shop: { provider: PaymentProvider; driver: ContractDriver },
      methods?: readonly PaymentMethod[],
    ): Promise<PaymentMethod[]> {
      const checkoutId = newCheckoutId();
      const { providerRef } = await shop.provider.createCheckout(request(checkoutId, methods));
      return sorted(await shop.driver.methodsOffered(checkoutId, providerRef));
    }

    describe("offers only the methods a checkout names, of the shop's", () => {
      // The row's env shop: every method its provider offers, unless its env names some.
      let shop: readonly PaymentMethod[];
      beforeAll(() => {
        shop = shopMethods(row.env(world.fake), row);
      });

      it("a checkout that names no methods offers the shop's", async () => {
        expect(await offeredAt(world)).toEqual(sorted(shop));
      });

      it('a checkout for Pix offers only Pix', async () => {
        expect(shop).toContain('pix');
        expect(await offeredAt(world, ['pix'])).toEqual(['pix']);
      });

      if (PROVIDERS[row.name].offer.methods.includes('card')) {
        it('a checkout for card offers only card', async () => {
          expect(shop).toContain('card');
          expect(await offeredAt(world, ['card'])).toEqual(['card']);
        });
      }

      it("a checkout that names every method offers the shop's, no more", async () => {
        expect(await offeredAt(world, PAYMENT_METHODS)).toEqual(sorted(shop));
      });
    });

    // A shop that takes fewer methods than its provider offers: a checkout gets none beyond them.
    if (PROVIDERS[row.name].offer.methods.includes('boleto')) {
      describe('at a shop that takes no boleto (PAYMENT_METHODS=pix,card)', () => {
        let narrow: ReturnType<typeof shopAt>;
        beforeAll(() => {
          narrow = shopAt(row, world.fake, { ...row.env(world.fake), PAYMENT_METHODS: 'pix,card' });
        });

        it('a checkout that names no methods offers Pix and card', async () => {
          expect(await offeredAt(narrow)).toEqual(['card', 'pix']);
        });

        it('a checkout for card or boleto offers only card', async () => {
          expect(await offeredAt(narrow, ['card', 'boleto'])).toEqual(['card']);
        });
      });
    }

    it('can no longer be paid once the connector closes it', async () => {
      const c = await created();
      await world.provider.cancelCheckout?.({
        checkoutId: c.checkoutId,
        providerRef: c.providerRef,
      });
      // The customer tries anyway: the provider refuses, or takes nothing.
      await driver.pay(c.checkoutId, c.providerRef).catch(() => undefined);
      expect((await status(c)).state).not.toBe('paid');
    });

    it('turns a valid webhook into a hint about this checkout', async () => {
      const c = await created();
      if (!driver.webhook) {
        expect(
          await world.provider.parseWebhook({ headers: {}, query: {}, rawBody: Buffer.from('{}') }),
        ).toMatchObject({ ignore: expect.any(String) });
        return;
      }
      await driver.pay(c.checkoutId, c.providerRef);
      const hint: WebhookHint = await world.provider.parseWebhook(
        await driver.webhook(c.checkoutId, c.providerRef),
      );
      expect(hint).toEqual(
        'checkoutId' in hint
          ? { checkoutId: c.checkoutId, eventId: expect.any(String) }
          : { providerRef: c.providerRef, eventId: expect.any(String) },
      );
    });

    if (forgeries.length > 0) {
      it.each([...forgeries])('refuses a webhook: %s', async (forgery) => {
        const c = await created();
        await driver.pay(c.checkoutId, c.providerRef);
        if (!driver.webhook) {
          // No webhooks at all: whatever arrives is acknowledged and ignored, never acted on.
          const input = { headers: {}, query: {}, rawBody: Buffer.from(forgery) };
          expect('ignore' in (await world.provider.parseWebhook(input))).toBe(true);
          return;
        }
        const input = await driver.webhook(c.checkoutId, c.providerRef, forgery);
        await expect(world.provider.parseWebhook(input)).rejects.toMatchObject({
          code: 'WEBHOOK_SIGNATURE_INVALID',
        });
      });
    } else {
      it('takes an unsigned webhook as a hint only: the status read says a forgery is unpaid', async () => {
        const c = await created();
        const forged = {
          pix: [
            {
              endToEndId: 'E0000000020261128000000000000000',
              txid: c.providerRef,
              valor: '530.35',
              horario: new Date().toISOString(),
            },
          ],
        };
        const input = { headers: {}, query: {}, rawBody: Buffer.from(JSON.stringify(forged)) };
        expect(await world.provider.parseWebhook(input)).toEqual({
          providerRef: c.providerRef,
          eventId: expect.any(String),
        });
        expect(await status(c)).toEqual({ state: 'pending' });
      });
    }
  },
);
