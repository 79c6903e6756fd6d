import type { SandboxProvider } from '../../../src/payments/sandbox/sandbox-provider';
import { eventually, settled, startHarness, type Harness } from '../../support/harness';

describe('a checkout nobody pays', () => {
  let h: Harness;
  beforeAll(async () => {
    // Long enough for the URL to be sent first on a loaded machine; short for a test.
    h = await startHarness({ start: { expiryMs: 5000 } });
  });
  afterAll(() => h.stop());

  it('expires, is reported as one cancel, and can no longer be paid', async () => {
    const answer = await h.simulator.requestCheckout(1020);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const url = await eventually(() => h.simulator.checkoutUrlFor(1020));
    const cancel = await eventually(
      () => h.simulator.accepted('cancel-checkout').find((c) => c.serviceId === 1020),
      20_000,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1020, reason: 'checkout expired' });
    expect(cancel.idempotencyKey).toBe(`cancel:${checkoutId}`);

    const page = await (await fetch(url)).text();
    expect(page).toContain('Este link de pagamento expirou.');
    expect(page).not.toContain('Pagar R$');
    const late = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(late.status).toBe(303);
    await settled(h.connector.jobs);
    expect(
      h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1020),
    ).toHaveLength(0);
    expect((await h.connector.deps.store.get(checkoutId))?.outcome).toBe('expired');
  });
});

describe('a checkout paid at the last moment', () => {
  let h: Harness;
  beforeAll(async () => {
    // Checkouts that expire in an hour: the payment below is surely made in time, however
    // loaded the machine; the expiry check is then made due at once, as it is at the expiry.
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('lets a payment made just before expiry win, though its webhook never came', async () => {
    const answer = await h.simulator.requestCheckout(1021);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const { store, provider, jobs } = h.connector.deps;
    await eventually(
      async () => ((await store.get(checkoutId))?.state === 'url_sent' ? true : undefined),
      20_000,
      'the url sent',
    );
    // Paid at the provider in the last moments, with no webhook: the expiry check is the first
    // to learn of it, and must record the payment, not the expiry.
    expect(await (provider as SandboxProvider).settle(checkoutId, 'paid')).toBe('paid');
    expect((await store.get(checkoutId))?.state).toBe('url_sent');
    await jobs.scheduleExpiry(checkoutId, new Date());
    await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1021),
      20_000,
      'the finish',
    );
    await settled(h.connector.jobs);
    expect(
      h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1021),
    ).toHaveLength(1);
    expect(
      h.simulator.accepted('cancel-checkout').filter((c) => c.serviceId === 1021),
    ).toHaveLength(0);
    const record = await store.get(checkoutId);
    expect(record?.outcome).toBe('paid');
    expect(record?.reachedAt?.expired).toBeUndefined();
  });
});
