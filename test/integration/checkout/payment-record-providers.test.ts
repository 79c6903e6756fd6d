import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recordIdOf } from '../../../src/checkout/payment-record';
import { minorOf } from '../../../src/payments/money';
import { FakeAsaas } from '../../support/fake-asaas';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { eventually, WAIT_DEADLINE_MS } from '../../support/harness';
import { PixWorld } from '../../support/pix-world';
import { providerSuite, type ProviderFake, type ProviderSuite } from '../../support/provider-suite';

/*
 * The payment record (docs/payments-to-the-erp.md) from real adapters against their fakes, the
 * whole connector between them and the ERP's folder: a card in installments with interest at
 * Mercado Pago, then its refund; a Pix through the shop's own bank; an Asaas Pix. Every field of
 * each record is asserted against what the provider's fake reported.
 */
const BRL_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The records the ERP's folder holds for `checkoutId`, by event. */
function recordsIn(dir: string, checkoutId: string): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith('payment-')) continue;
    const record = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as Record<
      string,
      unknown
    >;
    if (record.checkout_id === checkoutId) found.set(String(record.event), record);
  }
  return found;
}

/** A suite of `fake`'s provider writing its ERP records to a folder of its own. */
function withErpFolder<F extends ProviderFake>(
  makeFake: () => F,
  env: Record<string, string> = {},
): {
  suite: ProviderSuite<F>;
  dir: string;
  record: (id: string, event: string) => Promise<Record<string, unknown>>;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'erp-records-'));
  const suite = providerSuite(makeFake, {
    env: { ERP_SINK: 'directory', ERP_EXPORT_DIR: dir, ...env },
    start: { produceBackoffMs: 50 },
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const record = (checkoutId: string, event: string) =>
    eventually(
      () => recordsIn(dir, checkoutId).get(event),
      WAIT_DEADLINE_MS,
      `the ${event} record`,
    );
  return { suite, dir, record };
}

describe('Mercado Pago: a card in 6 installments with interest, then its refund', () => {
  const { suite, dir, record } = withErpFolder(() => new FakeMercadoPago(), {
    CARD_MAX_INSTALLMENTS: '12',
  });

  it('tells the order, the interest, the fee, the net and the release day; the refund the same payment', async () => {
    const { fake: mp, h } = suite;
    // The card's rate: 3.98%, the money 30 days after approval.
    mp.fees.credit_card = { percentHundredths: 398, fixedMinor: 0, releaseDays: 30 };
    const { checkoutId } = await suite.open(1031);
    const preference = mp.preferenceFor(checkoutId)!;
    const order = (await h.connector.deps.store.get(checkoutId))!.amount!.amountMinor;
    const payment = mp.pay(preference, 'approved', undefined, { installments: 6, interest: 72 });
    await mp.notify(`${h.url}/webhooks/mercadopago`, payment);
    const paid = await record(checkoutId, 'paid');
    const fee = payment.fee_details.find((f) => f.type === 'mercadopago_fee')!;
    const amounts = {
      order,
      interest: 7_200,
      paid: order + 7_200,
      provider_fee: minorOf(fee.amount),
      vendor_fee: 0,
      net: minorOf(payment.transaction_details.net_received_amount),
    };
    expect(paid).toEqual({
      event: 'paid',
      record_id: recordIdOf(checkoutId, 'paid', String(payment.id)),
      shop: 'default',
      service_id: 1031,
      checkout_id: checkoutId,
      provider: 'mercadopago',
      method: 'card',
      installments: 6,
      amounts,
      currency: 'BRL',
      release_date: payment.money_release_date!.slice(0, 10),
      provider_ids: { payment: String(payment.id), pix_e2e: null },
      occurred_at: expect.any(String),
    });
    // The fee is Mercado Pago's 3.98% of the order; the net, the order less it.
    expect(amounts.provider_fee).toBe(Math.round((order * 398) / 10_000));
    expect(amounts.net).toBe(order - amounts.provider_fee);
    expect(paid.release_date).toMatch(BRL_DAY);

    // Mercado Pago tells it again: nothing more reaches the ERP.
    await mp.notify(`${h.url}/webhooks/mercadopago`, payment);
    mp.update(payment, 'refunded');
    await mp.notify(`${h.url}/webhooks/mercadopago`, payment);
    const refund = await record(checkoutId, 'refund');
    expect(refund).toEqual({
      ...paid,
      event: 'refund',
      record_id: recordIdOf(checkoutId, 'refund', String(payment.id)),
      occurred_at: expect.any(String),
      note: 'payment refunded at Mercado Pago',
    });
    expect(readdirSync(dir).filter((name) => name.startsWith('payment-'))).toHaveLength(2);
  });
});

describe("a Pix through the shop's own bank", () => {
  const { suite, record } = withErpFolder(() => new PixWorld());

  it("tells its end-to-end id and the day it arrived; the bank's fee untold", async () => {
    const { fake: world, h } = suite;
    const { checkoutId } = await suite.open(1032);
    const stored = (await h.connector.deps.store.get(checkoutId))!;
    const { pix } = await world.pix.payAndNotify(stored.providerRef!);
    const paid = await record(checkoutId, 'paid');
    const order = stored.amount!.amountMinor;
    expect(paid).toEqual({
      event: 'paid',
      record_id: recordIdOf(checkoutId, 'paid', pix.endToEndId),
      shop: 'default',
      service_id: 1032,
      checkout_id: checkoutId,
      provider: 'pix',
      method: 'pix',
      installments: 1,
      amounts: { order, interest: 0, paid: order, provider_fee: null, vendor_fee: 0, net: null },
      currency: 'BRL',
      release_date: new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(
        new Date(pix.horario),
      ),
      provider_ids: { payment: pix.endToEndId, pix_e2e: pix.endToEndId },
      occurred_at: expect.any(String),
    });
  });
});

describe('Asaas: a Pix', () => {
  const { suite, record } = withErpFolder(() => new FakeAsaas());

  it("tells Asaas's fee, the net, the credit day and the Pix's end-to-end id", async () => {
    const { fake: asaas, h } = suite;
    const { checkoutId } = await suite.open(1033);
    const order = (await h.connector.deps.store.get(checkoutId))!.amount!.amountMinor;
    const [payment] = asaas.pay(asaas.checkoutFor(checkoutId)!, {
      billingType: 'PIX',
      status: 'RECEIVED',
    });
    await asaas.notify(
      `${h.url}/webhooks/asaas`,
      asaas.event('PAYMENT_RECEIVED', { payment: payment! }),
    );
    const paid = await record(checkoutId, 'paid');
    const transaction = asaas.pixTransactions.get(payment!.pixTransaction!)!;
    expect(paid).toEqual({
      event: 'paid',
      record_id: recordIdOf(checkoutId, 'paid', payment!.id),
      shop: 'default',
      service_id: 1033,
      checkout_id: checkoutId,
      provider: 'asaas',
      method: 'pix',
      installments: 1,
      amounts: {
        order,
        interest: 0,
        paid: order,
        provider_fee: order - minorOf(payment!.netValue!),
        vendor_fee: 0,
        net: minorOf(payment!.netValue!),
      },
      currency: 'BRL',
      release_date: payment!.creditDate,
      provider_ids: { payment: payment!.id, pix_e2e: transaction.endToEndIdentifier },
      occurred_at: expect.any(String),
    });
    expect(paid.amounts).toMatchObject({ provider_fee: expect.any(Number) });
    expect((paid.amounts as { provider_fee: number }).provider_fee).toBeGreaterThan(0);
  });
});
