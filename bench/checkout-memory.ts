/*
 * Redis memory per kept checkout, against the previous release's record, in one run: a private
 * redis-server, BENCH_CHECKOUTS (5,000) checkouts written through the connector's own store,
 * each as a paid checkout lives: opened for its service, its provider's checkout attached (three
 * charge lines), paid with a settlement as a card in installments reports it, reported to the
 * platform; one in twenty then refunded (an incident). The baseline writes the same checkouts as
 * the previous release did, without the settlement. Memory is Redis's `used_memory` before and
 * after (each variant on an emptied server), divided by the checkouts: every key a checkout
 * keeps (its record, its provider's index, its service's pointer and history).
 *
 * Reported: bytes per checkout of each, their ratio, and what a shop needs for 10,000 checkouts
 * a month kept CHECKOUT_RETENTION_DAYS (180) after their outcome: the README's figure. The
 * queues' completed jobs are not in it: BullMQ keeps them 7 days, at most 10,000 per queue.
 * Run: npm run bench:memory   (BENCH_CHECKOUTS=5000)
 */
import { randomBytes } from 'node:crypto';
import { newCheckoutId } from '../src/checkout/checkout-record';
import { closeRedis, createRedis, type RedisCommands } from '../src/redis/redis';
import { startPrivateRedis } from '../src/demo/private-redis';
import { RedisCheckoutStore } from '../src/store/redis-checkout-store';
import { showRatio, safeRatio } from './bench-support';

const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 5000);
const RETENTION_DAYS = 180;
const BRL = (amountMinor: number) => ({ amountMinor, currency: 'BRL' });

const LINES = [
  { label: 'MDF Branco TX 15mm — 12 peças', amountMinor: 38_990 },
  { label: 'Fita de borda PVC 22mm — 40 m', amountMinor: 9_545 },
  { label: 'Furação e usinagem', amountMinor: 4_500 },
];

/** One paid checkout of `serviceId`, as this release (with a settlement) or the previous one. */
async function writeCheckout(
  store: RedisCheckoutStore,
  serviceId: number,
  withSettlement: boolean,
): Promise<void> {
  const checkoutId = newCheckoutId();
  const now = new Date();
  await store.openForService({
    checkoutId,
    serviceId,
    provider: 'mercadopago',
    now,
    expiresAt: new Date(now.getTime() + 3_600_000),
    lookAt: now,
  });
  const providerRef = `${randomBytes(4).readUInt32BE()}-${randomBytes(16).toString('hex')}`;
  await store.attachProviderCheckout(
    checkoutId,
    {
      provider: 'mercadopago',
      providerRef,
      url: `https://www.mercadopago.com.br/checkout/v1/redirect?pref_id=${providerRef}`,
      amount: BRL(53_035),
      lines: LINES,
    },
    now,
    now,
  );
  const paid = {
    transactionId: String(100_000_000_000 + serviceId),
    method: 'card' as const,
    collectedMinor: 57_806,
    interestMinor: 4_771,
    ...(withSettlement
      ? {
          settlement: {
            providerFee: BRL(2_641),
            net: BRL(55_165),
            releaseDate: '2027-01-04',
            installments: 6,
          },
        }
      : {}),
  };
  await store.transition(checkoutId, 'paid', paid, now, now, {
    provider: 'mercadopago',
    providerRef,
  });
  await store.transition(checkoutId, 'reported', {}, now, now);
  if (serviceId % 20 === 0) {
    await store.addIncident(checkoutId, {
      kind: 'refund',
      at: now.toISOString(),
      transactionId: paid.transactionId,
      note: 'payment refunded at Mercado Pago',
    });
  }
}

async function usedMemory(redis: RedisCommands): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

/** Bytes per checkout of one variant, on an emptied server. */
async function bytesPerCheckout(redis: RedisCommands, withSettlement: boolean): Promise<number> {
  await redis.flushall();
  const store = new RedisCheckoutStore(redis, 'bench', 'default', {
    retentionMs: RETENTION_DAYS * 86_400_000,
  });
  const before = await usedMemory(redis);
  for (let i = 0; i < CHECKOUTS; i += 1) await writeCheckout(store, 100_000 + i, withSettlement);
  return ((await usedMemory(redis)) - before) / CHECKOUTS;
}

async function main(): Promise<void> {
  const server = await startPrivateRedis();
  const redis = createRedis(server.url, 'worker', 'bench-memory');
  try {
    // Alternating, twice each: the allocator settles after the first fill.
    const previous: number[] = [];
    const current: number[] = [];
    for (let rep = 0; rep < 2; rep += 1) {
      previous.push(await bytesPerCheckout(redis, false));
      current.push(await bytesPerCheckout(redis, true));
    }
    const before = Math.min(...previous);
    const now = Math.min(...current);
    const months = RETENTION_DAYS / 30;
    const perShop = (10_000 * months * now) / 1024 / 1024;
    console.log(`checkouts per variant: ${CHECKOUTS}`);
    console.log(`previous release's record: ${before.toFixed(0)} bytes per checkout`);
    console.log(
      `this release's record (with its settlement): ${now.toFixed(0)} bytes per checkout`,
    );
    console.log(`ratio: ${showRatio(safeRatio(now, before))}`);
    console.log(
      `10,000 checkouts a month, kept ${RETENTION_DAYS} days: ${(10_000 * months).toLocaleString('en')} records, ${perShop.toFixed(0)} MB of Redis`,
    );
  } finally {
    await closeRedis(redis);
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
