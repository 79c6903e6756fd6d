import { expireCheckout, PROCESSING_RECHECK_MS } from '../../src/checkout/expire-checkout';
import { produceCheckout } from '../../src/checkout/produce-checkout';
import { requestCheckout } from '../../src/checkout/request-checkout';
import { useCaseWorld, type UseCaseWorld } from '../support/checkout-deps';
import { startPlatform } from '../support/platform';
import { startTestRedis, type TestRedis } from '../support/redis-server';

describe('the expiry check', () => {
  let redis: TestRedis;
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  let w: UseCaseWorld;
  let nextService = 1001;

  beforeAll(async () => {
    redis = await startTestRedis();
    platform = await startPlatform({ serviceCount: 25 });
  });
  afterAll(async () => {
    await platform.simulator.stop();
    await redis.close();
  });
  beforeEach(async () => {
    w = await useCaseWorld(redis.url, platform.client, { expiryMs: 30 * 60_000 });
  });
  afterEach(() => w.close());

  async function checkout(produced = true): Promise<string> {
    const answer = await requestCheckout(w.deps, nextService++);
    if (answer.kind !== 'accepted') throw new Error(answer.kind);
    if (produced) await produceCheckout(w.deps, answer.checkoutId, answer.checkoutId);
    return answer.checkoutId;
  }
  const notification = async (kind: 'finish' | 'cancel', checkoutId: string) =>
    w.jobs.notificationQueue.getJob(`${kind}-${checkoutId}`);

  it('expires an unpaid checkout, closing it at the provider, and cancels it', async () => {
    const id = await checkout();
    // A moment early (clocks differ): the provider still offers the payment, so it is closed.
    w.advance(30 * 60_000 - 1000);
    expect(await expireCheckout(w.deps, id)).toBe('settled');
    expect((await w.sandbox.payment(id))?.state).toBe('expired');
    expect((await w.deps.store.get(id))?.outcome).toBe('expired');
    expect((await notification('cancel', id))?.data).toMatchObject({ outcome: 'expired' });
  });

  it('expires it itself when the provider cannot close a checkout', async () => {
    const id = await checkout();
    const sandbox = w.sandbox;
    w.deps.provider = {
      name: sandbox.name,
      createCheckout: (request) => sandbox.createCheckout(request),
      getStatus: (ref) => sandbox.getStatus(ref),
      parseWebhook: () => sandbox.parseWebhook(),
    };
    w.advance(30 * 60_000 - 1000);
    expect(await expireCheckout(w.deps, id)).toBe('expired');
    expect(await w.deps.store.get(id)).toMatchObject({
      outcome: 'expired',
      reason: 'checkout expired',
    });
    expect(await notification('cancel', id)).toBeDefined();
  });

  it('records a payment the provider took before the check, though no webhook came', async () => {
    const id = await checkout();
    await w.sandbox.settle(id, 'paid');
    w.advance(30 * 60_000);
    expect(await expireCheckout(w.deps, id)).toBe('settled');
    expect((await w.deps.store.get(id))?.outcome).toBe('paid');
    expect(await notification('finish', id)).toBeDefined();
    expect(await notification('cancel', id)).toBeUndefined();
  });

  it('records a payment that lands between its read and its cancel at the provider', async () => {
    const id = await checkout();
    const sandbox = w.sandbox;
    // The customer's payment arrives at the provider in the moment the check closes it.
    w.deps.provider = {
      name: sandbox.name,
      createCheckout: (request) => sandbox.createCheckout(request),
      getStatus: (ref) => sandbox.getStatus(ref),
      parseWebhook: () => sandbox.parseWebhook(),
      cancelCheckout: async (ref) => {
        await sandbox.settle(ref.checkoutId, 'paid');
        await sandbox.cancelCheckout(ref);
      },
    };
    w.advance(30 * 60_000 - 1000);
    expect(await expireCheckout(w.deps, id)).toBe('settled');
    expect((await w.deps.store.get(id))?.outcome).toBe('paid');
    expect(await notification('cancel', id)).toBeUndefined();
  });

  it('looks again later at a payment still processing (Pix), instead of expiring it', async () => {
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
