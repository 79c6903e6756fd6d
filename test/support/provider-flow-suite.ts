import { eventually, settled, WAIT_DEADLINE_MS } from './harness';
import type { FlowDriver, TestProvider } from './providers';
import {
  RECORDED_BY_THE_RECONCILER,
  type ProviderFake,
  type ProviderSuite,
} from './provider-suite';

/**
 * The scenarios every provider's flow goes through, against the connector and the fake of
 * `suite` (the fake of `row`; ids 1020-1022 of the platform simulator's services are theirs):
 * paid and told, paid and never told, paid a wrong amount. A provider's own test file adds what
 * only that provider does.
 */
export function providerFlowScenarios(suite: ProviderSuite<ProviderFake>, row: TestProvider): void {
  let driver: FlowDriver<unknown>;
  beforeAll(() => {
    if (!row.flow) throw new Error(`${row.name} has no flow driver`);
    driver = row.flow(suite.fake, suite.h.url);
  });

  /** Asks for a checkout as the platform does; the platform gets the provider's URL. */
  async function open(serviceId: number): Promise<string> {
    const { checkoutId, url } = await suite.open(serviceId);
    expect(url).toBe(driver.urlOf(checkoutId));
    return checkoutId;
  }

  it('records a payment from its webhook, how it was paid, and the platform gets the finish', async () => {
    const { h } = suite;
    const checkoutId = await open(1020);
    const payment = driver.pay(checkoutId);
    expect(await driver.notify(payment)).toEqual({
      status: 200,
      body: { received: true, checkout_id: checkoutId, state: 'paid' },
    });
    const finish = await eventually(
      () => suite.accepted('finish-checkout', 1020)[0],
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toEqual({
      service_id: 1020,
      transaction_id: driver.transactionIdOf(payment),
    });
    // The record keeps how it was paid, as the provider said.
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe(driver.method);
    const page = await (
      await fetch(`${h.url}/return/${row.name}?checkout_id=${checkoutId}`)
    ).text();
    expect(page).toContain('Pagamento confirmado');
  });

  it('heals a lost webhook: the reconciler reads the payment at the provider', async () => {
    const checkoutId = await open(1021);
    const payment = driver.pay(checkoutId);
    await eventually(
      () => suite.accepted('finish-checkout', 1021)[0],
      WAIT_DEADLINE_MS,
      'finish from the reconciler',
    );
    // One finish, this checkout's, and nothing else; its outcome recorded by the reconciler's
    // job, not by a webhook's request.
    expect(await suite.outcomeOf(checkoutId, 1021)).toEqual({
      sent: [
        {
          endpoint: 'finish-checkout',
          body: { service_id: 1021, transaction_id: driver.transactionIdOf(payment) },
        },
      ],
      recorded: [RECORDED_BY_THE_RECONCILER],
    });
    expect((await suite.h.connector.deps.store.get(checkoutId))?.method).toBe(driver.method);
  });

  it('never records as paid a payment whose amount differs from the checkout', async () => {
    const { h } = suite;
    const checkoutId = await open(1022);
    await driver.notify(driver.payWrongAmount(checkoutId));
    expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('url_sent');
    const errors = h.log
      .entries()
      .filter((e) => e.message === 'provider reports a payment that does not match the checkout');
    expect(errors).toContainEqual(expect.objectContaining({ level: 'error', checkoutId }));
    // Delivery is asynchronous: nothing queued either, once the connector has settled.
    await settled(h.connector.jobs);
    expect(suite.accepted('finish-checkout', 1022)).toEqual([]);
  });
}
