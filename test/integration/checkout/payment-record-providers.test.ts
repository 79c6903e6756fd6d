import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recordIdOf } from '../../../src/checkout/payment-record';
import { countIn, recordsIn } from '../../support/erp-folder';
import { eventually, WAIT_DEADLINE_MS } from '../../support/harness';
import { providerSuite } from '../../support/provider-suite';
import { TEST_PROVIDER_LIST } from '../../support/providers';

/*
 * The payment record (docs/payments-to-the-erp.md) from real adapters against their fakes, the
 * whole connector between them and the ERP's folder, for every provider whose test registry row
 * says how its payment's record reads (a card in installments with interest at Mercado Pago, a
 * Pix through the shop's own bank, an Asaas Pix...), then its refund where the row can refund.
 * Every field of each record is asserted against what the provider's fake reported.
 */
const BRL_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Each provider whose row says how its payment's record reads (the registry's with `record`). */
const WITH_RECORD = TEST_PROVIDER_LIST.flatMap((row) =>
  row.record ? [[row.name, row.record.what, row, row.record] as const] : [],
);

describe.each(WITH_RECORD)('%s, %s: the payment record', (_name, _what, row, paying) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'erp-records-'));
  const suite = providerSuite(() => row.fake(), {
    fakeEnv: (fake) => row.env(fake),
    env: { ERP_SINK: 'directory', ERP_EXPORT_DIR: dir, ...paying.env },
    start: { produceBackoffMs: 50 },
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const record = (checkoutId: string, event: string) =>
    eventually(
      () => recordsIn(dir, checkoutId).get(event),
      WAIT_DEADLINE_MS,
      `the ${event} record`,
    );

  /** A checkout of `serviceId` paid as the row's case pays it: its id, order and payment. */
  async function paidCheckout(serviceId: number) {
    const { fake, h } = suite;
    const { checkoutId } = await suite.open(serviceId);
    const order = (await h.connector.deps.store.get(checkoutId))!.amount!.amountMinor;
    const payment = await paying.pay(fake, h.url, checkoutId);
    return { checkoutId, order, payment, says: paying.says(fake, payment, order) };
  }

  it('tells what the provider reported: the method, the order, the interest, the fee, the net, the release day, its ids, the payer, the card and the NF-e fields', async () => {
    const { checkoutId, order, says } = await paidCheckout(1031);
    const paid = await record(checkoutId, 'paid');
    const { transactionId, ...told } = says;
    expect(paid).toEqual({
      schema_version: 2,
      event: 'paid',
      record_id: recordIdOf(checkoutId, 'paid', transactionId),
      shop: 'default',
      service_id: 1031,
      checkout_id: checkoutId,
      provider: row.name,
      ...told,
      currency: 'BRL',
      plan: null,
      occurred_at: expect.any(String),
    });
    // The fee is the provider's rate on the order (none told, none); the net, the order less it.
    const fee = paying.fee(order);
    expect(says.amounts.provider_fee).toBe(fee);
    expect(says.amounts.net).toBe(fee === null ? null : order - fee);
    expect(paid.release_date).toMatch(BRL_DAY);
  });

  if (row.incidents) {
    const { incidents } = row;
    it('tells a refund as the same payment, once, however often the provider tells it', async () => {
      const { fake, h } = suite;
      if (!row.flow) throw new Error(`${row.name} has no flow driver`);
      const driver = row.flow(fake, h.url);
      const { checkoutId, payment, says } = await paidCheckout(1034);
      const paid = await record(checkoutId, 'paid');
      // The provider tells it again: nothing more reaches the ERP.
      await driver.notify(payment);
      await incidents.refund(fake, h.url, payment)();
      const refund = await record(checkoutId, 'refund');
      expect(refund).toEqual({
        ...paid,
        event: 'refund',
        record_id: recordIdOf(checkoutId, 'refund', says.transactionId),
        occurred_at: expect.any(String),
        note: incidents.notes.refund,
      });
      expect(countIn(dir, checkoutId)).toBe(2);
    });
  }
});
