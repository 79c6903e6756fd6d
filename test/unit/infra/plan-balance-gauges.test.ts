import { createMetrics, observeBalances } from '../../../src/infra/metrics';

describe('the gauges of balances of plans', () => {
  it('has a series per shop with a balance due, due and overdue, none for the others', async () => {
    const metrics = createMetrics();
    let shops = [
      { shop: 'loja-a', due: 3, overdue: 1 },
      { shop: 'loja-b', due: 0, overdue: 0 },
    ];
    observeBalances(metrics, async () => shops);
    const series = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)?.get())?.values.map((value) => [
        value.labels.shop,
        value.value,
      ]);
    expect(await series('connector_plan_balances_due')).toEqual([['loja-a', 3]]);
    expect(await series('connector_plan_balances_overdue')).toEqual([['loja-a', 1]]);
    // Paid since: the shop's series goes.
    shops = [{ shop: 'loja-a', due: 0, overdue: 0 }];
    expect(await series('connector_plan_balances_due')).toEqual([]);
  });
});
