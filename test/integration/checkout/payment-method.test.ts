import { syncCheckout } from '../../../src/checkout/settle-checkout';
import type { PaymentStatus } from '../../../src/payments/payment-provider';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { sandboxWith, useCaseSuite, type UseCaseWorld } from '../../support/checkout-deps';

/**
 * How a checkout was paid (card, Pix, boleto), as the record keeps it from its provider's
 * statuses: the status that moves or updates an open checkout sets it; one that says no method
 * leaves it; a record written before the field existed reads without it.
 */
describe("the record's payment method", () => {
  const suite = useCaseSuite();
  const recordOf = async (id: string) => suite.world.deps.store.get(id);

  /** The provider answers `statuses`, one per read (the last one again after). */
  function providerSays(w: UseCaseWorld, statuses: PaymentStatus[]): void {
    const said = [...statuses];
    w.deps.provider = {
      ...sandboxWith(w.sandbox, {}),
      getStatus: async () => (said.length > 1 ? said.shift()! : said[0]!),
    };
  }

  it('reads a record written before it knew the method, and sets it from the next status', async () => {
    const w = suite.world;
    const id = await suite.checkout();
    const keys = checkoutKeys(w.prefix, 'default');
    // What the previous code wrote: the same hash, no `method` field anywhere.
    expect(Object.keys(await w.redis.hgetall(keys.record(id)))).not.toContain('method');
    const before = await recordOf(id);
    expect(before).toMatchObject({ checkoutId: id, state: 'url_sent' });
    expect(before).not.toHaveProperty('method');

    await w.sandbox.settle(id, 'processing', 'pix');
    await syncCheckout(w.deps, id);
    expect(await recordOf(id)).toMatchObject({ state: 'processing', method: 'pix' });
    // Paid by confirming the Pix under way: still a Pix.
    await w.sandbox.settle(id, 'paid', 'card');
    await syncCheckout(w.deps, id);
    expect(await recordOf(id)).toMatchObject({ outcome: 'paid', method: 'pix' });
    expect(await w.redis.hget(keys.record(id), 'method')).toBe('pix');
  });

  it('reads a method it does not know (a later version’s) as none, not as an unreadable record', async () => {
    const w = suite.world;
    const id = await suite.checkout();
    await w.redis.hset(checkoutKeys(w.prefix, 'default').record(id), 'method', 'wallet');
    const record = await recordOf(id);
    expect(record?.state).toBe('url_sent');
    expect(record).not.toHaveProperty('method');
  });

  it('keeps the method a later status does not tell, and takes the one it tells', async () => {
    const w = suite.world;
    const id = await suite.checkout();
    providerSays(w, [
      { state: 'processing', transactionId: 'p1', method: 'boleto' },
      { state: 'processing', transactionId: 'p1' },
      // The customer pays by Pix instead: the Pix under way is the payment that tells.
      { state: 'processing', transactionId: 'p2', method: 'pix' },
      { state: 'paid', transactionId: 'p2' },
    ]);
    await syncCheckout(w.deps, id);
    expect((await recordOf(id))?.method).toBe('boleto');
    await syncCheckout(w.deps, id);
    expect((await recordOf(id))?.method).toBe('boleto');
    await syncCheckout(w.deps, id);
    expect(await recordOf(id)).toMatchObject({ state: 'processing', method: 'pix' });
    await syncCheckout(w.deps, id);
    expect(await recordOf(id)).toMatchObject({
      outcome: 'paid',
      transactionId: 'p2',
      method: 'pix',
    });
  });

  it('records the method of a refused payment with its outcome, and never changes it after', async () => {
    const w = suite.world;
    const id = await suite.checkout();
    providerSays(w, [
      { state: 'failed', transactionId: 'p1', reason: 'payment failed', method: 'pix' },
    ]);
    await syncCheckout(w.deps, id);
    expect(await recordOf(id)).toMatchObject({ outcome: 'declined', method: 'pix' });
    // An outcome is sticky, and so is what was recorded with it.
    expect(await w.deps.store.updateMethod(id, 'card', w.now)).toBe(false);
    expect((await recordOf(id))?.method).toBe('pix');
  });

  it('records no method when the provider says none', async () => {
    const w = suite.world;
    const id = await suite.checkout();
    providerSays(w, [{ state: 'paid', transactionId: 'p1' }]);
    await syncCheckout(w.deps, id);
    const record = await recordOf(id);
    expect(record?.outcome).toBe('paid');
    expect(record).not.toHaveProperty('method');
  });
});
