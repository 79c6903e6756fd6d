import { expireCheckout, PROCESSING_RECHECK_MS } from '../../../src/checkout/expire-checkout';
import { sandboxWith, useCaseSuite } from '../../support/checkout-deps';

describe('the expiry check', () => {
  const suite = useCaseSuite({ expiryMs: 30 * 60_000 });
  const checkout = (produced?: boolean) => suite.checkout(produced);
  const notification = async (kind: 'finish' | 'cancel', checkoutId: string) =>
    suite.world.jobs.notificationQueue.getJob(`${kind}-${checkoutId}`);

  it('expires an unpaid checkout, closing it at the provider, and cancels it', async () => {
    const w = suite.world;
    const id = await checkout();
    // A moment early (clocks differ): the provider still offers the payment, so it is closed.
    w.advance(30 * 60_000 - 1000);
    expect(await expireCheckout(w.deps, id)).toBe('settled');
    expect((await w.sandbox.payment(id))?.state).toBe('expired');
    expect((await w.deps.store.get(id))?.outcome).toBe('expired');
    expect((await notification('cancel', id))?.data).toEqual({
      shop: 'default',
      checkoutId: id,
      kind: 'cancel',
    });
  });

  it('expires it itself when the provider cannot close a checkout', async () => {
    const w = suite.world;
    const id = await checkout();
    w.deps.provider = sandboxWith(w.sandbox, { cancelCheckout: null });
    w.advance(30 * 60_000 - 1000);
    expect(await expireCheckout(w.deps, id)).toBe('expired');
    expect(await w.deps.store.get(id)).toMatchObject({
      outcome: 'expired',
      reason: 'checkout expired',
    });
    expect(await notification('cancel', id)).toBeDefined();
  });

  it('records a payment the provider took before the check, though no webhook came', async () => {
    const w = suite.world;
    const id = await checkout();
    await w.sandbox.settle(id, 'paid');
    w.advance(30 * 60_000);
    expect(await expireCheckout(w.deps, id)).toBe('settled');
    expect((await w.deps.store.get(id))?.outcome).toBe('paid');
    expect(await notification('finish', id)).toBeDefined();
    expect(await notification('cancel', id)).toBeUndefined();
  });

  it('records a payment that lands between its read and its cancel at the provider', async () => {
    const w = suite.world;
    const id = await checkout();
    const sandbox = w.sandbox;
    // The customer's payment arrives at the provider in the moment the check closes it.
    w.deps.provider = sandboxWith(sandbox, {
      cancelCheckout: async (ref) => {
        await sandbox.settle(ref.checkoutId, 'paid');
        await sandbox.cancelCheckout(ref);
      },
    });
    w.advance(30 * 60_000 - 1000);
    expect(await expireCheckout(w.deps, id)).toBe('settled');
    expect((await w.deps.store.get(id))?.outcome).toBe('paid');
    expect(await notification('cancel', id)).toBeUndefined();
  });

  it('looks again later at a payment still processing (Pix), instead of expiring it', async () => {
    const w = suite.world;
    const id = await checkout();
    await w.sandbox.settle(id, 'processing');
    w.advance(30 * 60_000);
    expect(await expireCheckout(w.deps, id)).toBe('recheck');
    expect((await w.deps.store.get(id))?.state).toBe('processing');
    const rechecks = await w.jobs.checkoutQueue.getJobs(['delayed', 'waiting']);
    const at = w.now.getTime() + PROCESSING_RECHECK_MS;
    expect(rechecks.map((job) => job.id)).toContain(`expire-${id}-${at}`);
  });

  it('fails a checkout that was never produced, and leaves a closed one alone', async () => {
    const w = suite.world;
    const id = await checkout(false);
    w.advance(30 * 60_000);
    expect(await expireCheckout(w.deps, id)).toBe('expired');
    expect(await w.deps.store.get(id)).toMatchObject({
      state: 'failed',
      reason: 'checkout was never produced',
    });
    expect(await expireCheckout(w.deps, id)).toBe('closed');
    expect(await expireCheckout(w.deps, 'chk_000000000000000000000000')).toBe('closed');
  });
});
