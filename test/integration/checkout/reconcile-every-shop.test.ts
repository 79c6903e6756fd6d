import type { CheckoutDeps } from '../../../src/checkout/checkout-deps';
import {
  everyShopReconciler,
  type EveryShopOptions,
} from '../../../src/checkout/reconcile-every-shop';
import { useCaseSuite } from '../../support/checkout-deps';

const INTERVAL_MS = 60_000;

describe('everyShopReconciler', () => {
  const suite = useCaseSuite({ reconcileIntervalMs: INTERVAL_MS });

  /** Shops over the world's one line; `removed` ones are listed but no longer stored. */
  function shopsOver(deps: CheckoutDeps, ids: string[], removed: string[] = []) {
    const asked: string[] = [];
    const reconciled: string[] = [];
    const unreadable: number[] = [];
    const shops = {
      ids: () => ids,
      byId: async (shop: string) => {
        asked.push(shop);
        return removed.includes(shop) ? undefined : { deps };
      },
    };
    const options: EveryShopOptions = {
      intervalMs: INTERVAL_MS,
      inShopContext: (shop, run) => {
        reconciled.push(shop);
        return run();
      },
      countUnreadable: (count) => unreadable.push(count),
    };
    return { reconcile: everyShopReconciler(shops, options), asked, reconciled, unreadable };
  }

  /** A pass over shops in `order`: every shop's line, then every shop's watch of paid Pix. */
  const pass = (...order: string[]) => [...order, ...order];

  it('goes over the shops in turn, pass after pass, each in its own context, lines before watches', async () => {
    const s = shopsOver(suite.world.deps, ['a', 'b', 'c']);
    for (let turn = 0; turn < 4; turn++) await s.reconcile();
    expect(s.reconciled).toEqual([
      ...pass('a', 'b', 'c'),
      ...pass('b', 'c', 'a'),
      ...pass('c', 'a', 'b'),
      ...pass('a', 'b', 'c'),
    ]);
    expect(s.unreadable).toEqual(Array<number>(12).fill(0));
  });

  it('skips a shop removed since the last poll, without losing its turn order', async () => {
    const s = shopsOver(suite.world.deps, ['a', 'b', 'c'], ['b']);
    await s.reconcile();
    await s.reconcile();
    // Each shop is read once a pass, for its line and its watch.
    expect(s.asked).toEqual(['a', 'b', 'c', 'b', 'c', 'a']);
    expect(s.reconciled).toEqual([...pass('a', 'c'), ...pass('c', 'a')]);
  });

  it("adds the shops' reports up", async () => {
    const w = suite.world;
    await suite.checkout();
    await suite.checkout();
    w.advance(INTERVAL_MS / 2);
    // Both shops read the one line: the first looks at both checkouts, the second finds none due.
    const s = shopsOver(w.deps, ['a', 'b']);
    const total = await s.reconcile();
    expect(total).toMatchObject({ looked: 2, synced: 2, errors: 0, unreadable: 0, backlog: 0 });
    expect(s.unreadable).toEqual([0, 0]);
  });
});
