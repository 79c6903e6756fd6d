/*
 * What the watch of paid Pix costs (issue 45; CONTRACT "Money that stays"): 10,000 checkouts paid
 * by Pix, read again at their provider daily for 14 days and weekly until PIX_WATCH_DAYS (92).
 *
 *   baseline: BENCH_CHECKOUTS (default 10,000) checkouts paid by card, as the store writes them
 *             (no watch);
 *   watched:  as many paid by Pix, each in its shop's watch from the write that records it paid.
 *
 * Both on one private Redis, in the same run. Reported: the Redis bytes of each side (INFO's
 * used_memory, and the watch key's MEMORY USAGE) per 10,000 checkouts, and the watched/baseline
 * ratio; then the 92 days played on a moved clock, an hour a step, the watch read as the
 * reconciler reads it (watchPaidPix) against a provider that counts its reads: reads and Redis
 * commands per 10,000 watched checkouts, in all and on the busiest day. A shop's pass reads at
 * most WATCH_READS_PER_PASS (50) of its watch: the figure that says whether passes keep up.
 *
 * Run: npm run bench:watch
 */
import type { CheckoutDeps } from '../src/checkout/checkout-deps';
import { PIX_WATCH_DAYS, watchPaidPix, WATCH_READS_PER_PASS } from '../src/checkout/pix-watch';
import { startPrivateRedis } from '../src/demo/private-redis';
import type { PaymentStatus } from '../src/payments/payment-provider';
import { closeRedis, createRedis, waitForRedis, type RedisCommands } from '../src/redis/redis';
import { checkoutKeys } from '../src/store/checkout-keys';
import { redisCheckoutPorts } from '../src/store/redis-checkout-ports';
import { safeRatio, showRatio } from './bench-support';

const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 10_000);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const PAID_AT = Date.parse('2026-12-07T12:00:00.000Z');

const usedMemory = async (redis: RedisCommands): Promise<number> =>
  Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);

const commandsRun = async (redis: RedisCommands): Promise<number> =>
  Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1]);

/** `count` checkouts of `shop` paid by `method` at PAID_AT, as the store writes them. */
async function paidCheckouts(
  redis: RedisCommands,
  prefix: string,
  method: 'pix' | 'card',
  count: number,
): Promise<void> {
  const { store } = redisCheckoutPorts(redis, prefix, 'default');
  const now = new Date(PAID_AT);
  const amount = { amountMinor: 1_250_000, currency: 'BRL' };
  const ids = Array.from({ length: count }, (_, i) => `chk_${i.toString(16).padStart(24, '0')}`);
  for (let at = 0; at < ids.length; at += 200) {
    await Promise.all(
      ids.slice(at, at + 200).map(async (checkoutId, i) => {
        const expiresAt = new Date(PAID_AT + HOUR_MS);
        const serviceId = 100_000 + at + i;
        const opened = { checkoutId, serviceId, provider: 'pix', now, expiresAt, lookAt: now };
        await store.openForService(opened);
        const ref = { provider: 'pix', providerRef: `tx${checkoutId}`, url: 'https://x', amount };
        await store.attachProviderCheckout(checkoutId, { ...ref, lines: [] }, now, now);
        const fields = { method, transactionId: `E${checkoutId}`, collectedMinor: 1_250_000 };
        await store.transition(checkoutId, 'paid', fields, now, now);
        await store.transition(checkoutId, 'reported', {}, now, now);
      }),
    );
  }
}

/** The 92 days on a moved clock, an hour a step: every read the watch makes, counted. */
async function playTheWatch(redis: RedisCommands, prefix: string) {
  const ports = redisCheckoutPorts(redis, prefix, 'default');
  let clock = new Date(PAID_AT);
  let reads = 0;
  const readsByDay = new Map<number, number>();
  const status: PaymentStatus = { state: 'paid', method: 'pix' };
  const deps = {
    ...ports,
    shop: 'default',
    clock: () => clock,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    provider: {
      name: 'pix',
      getStatus: async () => {
        reads += 1;
        const day = Math.floor((clock.getTime() - PAID_AT) / DAY_MS);
        readsByDay.set(day, (readsByDay.get(day) ?? 0) + 1);
        return status;
      },
    },
  } as unknown as CheckoutDeps;
  const commandsBefore = await commandsRun(redis);
  // A pass that finds nothing due costs one command, whether the watch holds 10 or 10,000: the
  // connector makes one a shop a pass. Counted apart.
  let empty = 0;
  for (let at = PAID_AT; at <= PAID_AT + (PIX_WATCH_DAYS + 1) * DAY_MS; at += HOUR_MS) {
    clock = new Date(at);
    // As many passes as the hour's due reads take (the connector's would spread them).
    for (;;) {
      const { watched } = await watchPaidPix(deps, { watchDays: PIX_WATCH_DAYS, limit: 1000 });
      if (watched > 0) continue;
      empty += 1;
      break;
    }
  }
  const commands = (await commandsRun(redis)) - commandsBefore - empty - 1;
  const left = await ports.line.watchSize();
  return { reads, busiestDay: Math.max(...readsByDay.values()), commands, left };
}

async function main(): Promise<void> {
  const server = await startPrivateRedis();
  const redis = createRedis(server.url, 'worker', 'bench-watch');
  try {
    await waitForRedis(redis, 10_000);
    const empty = await usedMemory(redis);
    await paidCheckouts(redis, 'bench-card', 'card', CHECKOUTS);
    const card = (await usedMemory(redis)) - empty;
    await paidCheckouts(redis, 'bench-pix', 'pix', CHECKOUTS);
    const pix = (await usedMemory(redis)) - empty - card;
    const watchKey = checkoutKeys('bench-pix', 'default').watch;
    const watchBytes = Number(await redis.call('MEMORY', 'USAGE', watchKey, 'SAMPLES', '0'));
    const per10k = (bytes: number) => Math.round((bytes * 10_000) / CHECKOUTS);
    const played = await playTheWatch(redis, 'bench-pix');

    console.log(`Pix watch: ${CHECKOUTS} checkouts paid by Pix against as many paid by card`);
    console.log(`  Redis, per 10,000 (used_memory): card ${per10k(card)} B, Pix ${per10k(pix)} B`);
    console.log(`  the watch key (MEMORY USAGE): ${per10k(watchBytes)} B per 10,000`);
    console.log(`  watched/baseline memory: ${showRatio(safeRatio(pix, card))}`);
    console.log(`  over ${PIX_WATCH_DAYS} days, per 10,000 paid the same day:`);
    console.log(`    provider reads ${per10k(played.reads)} (${played.reads / CHECKOUTS} each)`);
    console.log(`    busiest day ${per10k(played.busiestDay)} reads`);
    console.log(
      `    Redis commands ${per10k(played.commands)} (${showRatio(safeRatio(played.commands, played.reads))} a read)`,
    );
    console.log(`    left in the watch after day ${PIX_WATCH_DAYS}: ${played.left}`);
    const capacity = WATCH_READS_PER_PASS * 1440;
    console.log(
      `  a shop's passes read at most ${WATCH_READS_PER_PASS} a pass: ${capacity} a day at RECONCILE_INTERVAL_MS=60000, ${showRatio(safeRatio(capacity, played.busiestDay))} times the busiest day of 10,000 paid at once`,
    );
  } finally {
    await closeRedis(redis);
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
