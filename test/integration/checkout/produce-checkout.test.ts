import { produceCheckout } from '../../../src/checkout/produce-checkout';
import { requestCheckout } from '../../../src/checkout/request-checkout';
import { sandboxWith, useCaseSuite } from '../../support/checkout-deps';

describe('producing a checkout', () => {
  const suite = useCaseSuite();
  const requested = async (serviceId: number) => {
    const answer = await requestCheckout(suite.world.deps, serviceId);
    if (answer.kind !== 'accepted') throw new Error(answer.kind);
    return answer.checkoutId;
  };

  it('never hands the platform an empty link, even when a provider returns one', async () => {
    const w = suite.world;
    const platform = suite.platform;
    const sandbox = w.sandbox;
    // A provider that misbehaves: it creates the payment but returns no URL.
    w.deps.provider = sandboxWith(sandbox, {
      createCheckout: async (request) => ({ ...(await sandbox.createCheckout(request)), url: '' }),
    });
    const checkoutId = await requested(1001);
    await expect(produceCheckout(w.deps, checkoutId, checkoutId)).rejects.toMatchObject({
      code: 'INTERNAL',
      retryable: true,
    });
    expect(platform.simulator.state.payments.filter((c) => c.serviceId === 1001)).toEqual([]);
    expect((await w.deps.store.get(checkoutId))?.state).toBe('requested');
  });

  it('posts the stored URL again on a repeat, without a second provider checkout', async () => {
    const w = suite.world;
    const platform = suite.platform;
    const checkoutId = await requested(1002);
    expect(await produceCheckout(w.deps, checkoutId, checkoutId)).toBe('url_sent');
    const first = await w.deps.store.get(checkoutId);
    expect(await produceCheckout(w.deps, checkoutId, `${checkoutId}:resend:2`)).toBe('url_sent');
    const calls = platform.simulator.accepted('checkout-url').filter((c) => c.serviceId === 1002);
    expect(calls.map((c) => (c.body as { checkout_url: string }).checkout_url)).toEqual([
      first?.url,
      first?.url,
    ]);
    expect((await w.deps.store.get(checkoutId))?.providerRef).toBe(first?.providerRef);
  });

  it('does nothing for a checkout that is gone or already closed', async () => {
    const w = suite.world;
    expect(await produceCheckout(w.deps, 'chk_000000000000000000000000', 'x')).toBe('missing');
    const checkoutId = await requested(1003);
    await w.deps.store.transition(
      checkoutId,
      'expired',
      {},
      w.now,
      w.deps.schedule.firstLookAt(w.now),
    );
    expect(await produceCheckout(w.deps, checkoutId, checkoutId)).toBe('closed');
  });

  it('fails a checkout for a service with nothing to charge, and cancels it', async () => {
    const w = suite.world;
    const platform = suite.platform;
    platform.simulator.state.override(1004, { detail: { id: 1004, labour: null } });
    const checkoutId = await requested(1004);
    expect(await produceCheckout(w.deps, checkoutId, checkoutId)).toBe('nothing_to_charge');
    expect(await w.deps.store.get(checkoutId)).toMatchObject({
      state: 'failed',
      reason: 'nothing to charge',
    });
    expect(await w.jobs.notificationQueue.getJob(`cancel-${checkoutId}`)).toBeDefined();
  });

  it('fails a checkout for a service the platform does not know, without a cancel', async () => {
    const w = suite.world;
    const checkoutId = await requested(4242);
    expect(await produceCheckout(w.deps, checkoutId, checkoutId)).toBe('unknown_service');
    expect((await w.deps.store.get(checkoutId))?.state).toBe('failed');
    expect(await w.jobs.notificationQueue.getJob(`cancel-${checkoutId}`)).toBeUndefined();
  });
});
