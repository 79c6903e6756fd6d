import type { CheckoutDeps } from './checkout-deps';
import { PIX_WATCH_DAYS, watchPaidPix } from './pix-watch';
import { reconcileCheckouts } from './reconcile-checkouts';
import type { ShopDirectory } from './shop-directory';

/**
 * What a reconciler pass asks of the shop directory: every shop's id, and each shop as stored
 * now (undefined when it was removed since the last poll).
 */
export type ReconciledShops = Pick<ShopDirectory<{ deps: CheckoutDeps }>, 'ids' | 'byId'>;

export interface EveryShopOptions {
  /** How often passes run: a pass keeps to four fifths of it. */
  intervalMs: number;
  /** PIX_WATCH_DAYS (92 unless said). */
  watchDays?: number;
  /** Runs one shop's part of the pass with the shop named on its log lines, as a job's are. */
  inShopContext<T>(shop: string, run: () => Promise<T>): Promise<T>;
  /** Counts the records each shop's part found unreadable and parked. */
  countUnreadable(count: number): void;
  /** Now, in ms since the epoch (Date.now unless said). */
  nowMs?: () => number;
}

/**
 * The order of one pass: the shops take turns at going first, so a shop with a long line never
 * keeps another's from being looked at pass after pass. `turns` is where the next pass starts.
 */
export function shopsInTurn(ids: readonly string[], turns: { next: number }): string[] {
  const start = ids.length === 0 ? 0 : turns.next % ids.length;
  turns.next = start + 1;
  return [...ids.slice(start), ...ids.slice(0, start)];
}

/**
 * A reconciler of every shop's line: each call is one pass, within one budget, the shops in turn
 * (`shopsInTurn`, the turn kept from pass to pass), then every shop's watch of paid Pix in what
 * is left of it. Returns the shops' reports added up.
 */
export function everyShopReconciler(
  shops: ReconciledShops,
  options: EveryShopOptions,
): () => Promise<Record<string, number>> {
  const turns = { next: 0 };
  return () => reconcileEveryShop(shops, options, turns);
}

export async function reconcileEveryShop(
  shops: ReconciledShops,
  options: EveryShopOptions,
  turns: { next: number },
): Promise<Record<string, number>> {
  const nowMs = options.nowMs ?? Date.now;
  // Leave the rest of the interval free, so passes do not pile up.
  const deadline = nowMs() + Math.round(options.intervalMs * 0.8);
  const total: Record<string, number> = {};
  const add = (report: object) => {
    for (const [key, value] of Object.entries(report) as Array<[string, number]>)
      total[key] = (total[key] ?? 0) + value;
  };
  // Each shop read once a pass, for its line and its watch.
  const served: Array<[string, { deps: CheckoutDeps }]> = [];
  for (const shop of shopsInTurn(shops.ids(), turns)) {
    // The shop as stored now: one removed since the last poll is not reconciled with its account.
    const runtime = await shops.byId(shop);
    if (!runtime) continue;
    served.push([shop, runtime]);
    const report = await options.inShopContext(shop, () =>
      reconcileCheckouts(runtime.deps, {
        intervalMs: options.intervalMs,
        budgetMs: Math.max(0, deadline - nowMs()),
      }),
    );
    options.countUnreadable(report.unreadable);
    add(report);
  }
  // Every shop's line first; then the watches of paid Pix, in the same turn, in what is left.
  const watch = {
    watchDays: options.watchDays ?? PIX_WATCH_DAYS,
    inTime: () => nowMs() < deadline,
  };
  for (const [shop, runtime] of served) {
    if (nowMs() >= deadline) break;
    add(await options.inShopContext(shop, () => watchPaidPix(runtime.deps, watch)));
  }
  return total;
}
