import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recordIdOf } from '../../../src/checkout/payment-record';
import { jobIds, type SyncIncidentJob } from '../../../src/jobs/queue-names';
import { FakeErp } from '../../support/fake-erp';
import {
  completedJob,
  eventually,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';
import { checkoutIdOf } from '../../support/provider-suite';

/*
 * The payment record to the ERP (docs/payments-to-the-erp.md), end to end with the sandbox: sent
 * when a checkout is paid, to the webhook sink and to the directory sink, signed and retried as
 * the services are, exactly once per event whatever the ERP answered and however often the
 * provider spoke; and the incidents the previous release queued still reach the ERP, as records.
 */
const SECRET = `erp-${randomBytes(12).toString('hex')}`;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

interface Body {
  record_id: string;
  event: string;
  occurred_at: string;
  paid_at?: string | null;
}

/** A sandbox checkout of `serviceId` opened; the page's URL. */
async function opened(h: Harness, serviceId: number) {
  const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(serviceId));
  const url = await eventually(() => h.simulator.checkoutUrlFor(serviceId));
  return { checkoutId, url };
}

const press = (url: string, action: string) =>
  fetch(`${url}/${action}`, { method: 'POST', redirect: 'manual' });

describe('the payment record, through the webhook sink', () => {
  const erp = new FakeErp(SECRET);
  let h: Harness;
  beforeAll(async () => {
    await erp.start();
    h = await startHarness({
      env: { ERP_SINK: 'webhook', ERP_WEBHOOK_URL: erp.url, ERP_WEBHOOK_SECRET: SECRET },
      start: { produceBackoffMs: 50 },
    });
  });
  afterAll(async () => {
    await h.stop();
    await erp.stop();
  });

  it('a paid checkout: one record, every field, through a 503 and the Pay pressed three times', async () => {
    const { checkoutId, url } = await opened(h, 1011);
    erp.down = true;
    // The customer's Pay, and the same news again twice (a provider retrying its event).
    expect((await press(url, 'pay')).status).toBe(303);
    await press(url, 'pay');
    await press(url, 'pay');
    const refused = await eventually(
      () => erp.received.find((d) => d.event === 'payment' && d.answered === 503),
      WAIT_DEADLINE_MS,
      'a refused delivery of the record',
    );
    erp.down = false;
    const delivered = await eventually(
      () => erp.payments(checkoutId)[0],
      WAIT_DEADLINE_MS,
      'the record at the ERP',
    );
    const record = (await h.connector.deps.store.get(checkoutId))!;
    const body = delivered.body as Body;
    expect(delivered.verified).toBe(true);
    expect(delivered.deliveryId).toBe(`payment-${body.record_id}`);
    // Every attempt of the one delivery carries the same id and the same bytes.
    expect(refused.deliveryId).toBe(delivered.deliveryId);
    expect(refused.raw).toBe(delivered.raw);
    const code = record.transactionId!.replace('sbx_pay_', '').slice(0, 6).toUpperCase();
    expect(body).toEqual({
      schema_version: 2,
      event: 'paid',
      record_id: recordIdOf(checkoutId, 'paid', record.transactionId),
      shop: 'default',
      service_id: 1011,
      checkout_id: checkoutId,
      provider: 'sandbox',
      method: 'card',
      installments: 1,
      amounts: {
        order: record.amount!.amountMinor,
        interest: 0,
        paid: record.amount!.amountMinor,
        provider_fee: 0,
        vendor_fee: 0,
        net: record.amount!.amountMinor,
      },
      currency: 'BRL',
      release_date: expect.stringMatching(DAY),
      provider_ids: { payment: record.transactionId, pix_e2e: null, pix_txid: null },
      paid_at: record.settlement?.paidAt,
      // The sandbox knows no payer; its card is the test Visa, its code the payment's id's.
      payer: null,
      card: { brand: 'visa', last4: '4242', authorization_code: code },
      nfe: { tPag: '03', tBand: '01', cAut: code, CNPJ: null },
      plan: null,
      occurred_at: record.reachedAt?.paid,
    });
    expect(Date.parse(body.paid_at ?? '')).toBeLessThanOrEqual(Date.parse(body.occurred_at));
    expect(record.amount!.amountMinor).toBeGreaterThan(0);

    // The finish reached the platform, and nothing more reaches the ERP however long one waits
    // for the queues: the job is done, and a fourth Pay (the record now reported) adds nothing.
    await settled(h.connector.jobs);
    await completedJob(h.connector.syncQueue!.queue, `payment-${body.record_id}`);
    await press(url, 'pay');
    await settled(h.connector.jobs);
    const jobs = await h.connector.syncQueue!.queue.getJobs(['waiting', 'delayed', 'active']);
    expect(jobs.filter((job) => job.name === 'payment')).toEqual([]);
    expect(erp.payments(checkoutId)).toHaveLength(1);
  });

  it('a declined checkout sends no record; its later payment is a late_payment record', async () => {
    const { checkoutId, url } = await opened(h, 1012);
    await press(url, 'decline');
    await eventually(
      () => h.simulator.accepted('cancel-checkout').find((c) => c.serviceId === 1012),
      WAIT_DEADLINE_MS,
      'the cancel',
    );
    await press(url, 'late-pay');
    const late = await eventually(() => erp.payments(checkoutId)[0], WAIT_DEADLINE_MS, 'record');
    expect(late.body).toMatchObject({
      event: 'late_payment',
      method: null,
      amounts: { vendor_fee: 0 },
      note: 'paid after the checkout declined: the platform was told cancel',
    });
    expect(erp.payments(checkoutId, 'paid')).toEqual([]);
  });

  it("an incident the previous release queued (its 'incident' job) reaches the ERP as a record", async () => {
    const checkoutId = `chk_${randomBytes(12).toString('hex')}`;
    const old: SyncIncidentJob = {
      incident: {
        event: 'payment_incident',
        kind: 'refund',
        checkout_id: checkoutId,
        service_id: 1013,
        provider: 'mercadopago',
        outcome: 'paid',
        transaction_id: '1234567890',
        note: 'refunded at Mercado Pago',
        amount: { amount_minor: 53035, currency: 'BRL' },
        at: '2026-11-01T12:00:00.000Z',
      },
    };
    // As the previous release added it: no shop (the env shop's), its own job id.
    await h.connector.syncQueue!.queue.add('incident', old, {
      jobId: jobIds.syncIncident(checkoutId, 'refund', '1234567890'),
    });
    const delivered = await eventually(() => erp.payments(checkoutId)[0], WAIT_DEADLINE_MS, 'it');
    expect(delivered.body).toEqual({
      schema_version: 1,
      event: 'refund',
      record_id: recordIdOf(checkoutId, 'refund', '1234567890'),
      shop: 'default',
      service_id: 1013,
      checkout_id: checkoutId,
      provider: 'mercadopago',
      method: null,
      installments: null,
      amounts: {
        order: null,
        interest: null,
        paid: 53035,
        provider_fee: null,
        vendor_fee: null,
        net: null,
      },
      currency: 'BRL',
      release_date: null,
      provider_ids: { payment: '1234567890', pix_e2e: null, pix_txid: null },
      paid_at: null,
      payer: null,
      card: null,
      nfe: { tPag: null, tBand: null, cAut: null, CNPJ: null },
      plan: null,
      occurred_at: '2026-11-01T12:00:00.000Z',
      note: 'refunded at Mercado Pago',
    });
  });

  it('a record the previous release queued (no version, no invoice fields) reaches the ERP as version 1, those fields null', async () => {
    const checkoutId = `chk_${randomBytes(12).toString('hex')}`;
    const v1 = {
      event: 'paid',
      record_id: recordIdOf(checkoutId, 'paid', '987654321'),
      shop: 'default',
      service_id: 1015,
      checkout_id: checkoutId,
      provider: 'mercadopago',
      method: 'card',
      installments: 3,
      amounts: {
        order: 100_000,
        interest: 0,
        paid: 100_000,
        provider_fee: 4_990,
        vendor_fee: 0,
        net: 95_010,
      },
      currency: 'BRL',
      release_date: '2026-12-01',
      provider_ids: { payment: '987654321', pix_e2e: null },
      occurred_at: '2026-11-01T12:00:00.000Z',
    };
    // As the previous release added it: its own job id, its record as it wrote it.
    await h.connector.syncQueue!.queue.add(
      'payment',
      { shop: 'default', record: v1 },
      { jobId: jobIds.syncPayment(v1.record_id) },
    );
    const delivered = await eventually(() => erp.payments(checkoutId)[0], WAIT_DEADLINE_MS, 'it');
    expect(delivered.body).toEqual({
      schema_version: 1,
      ...v1,
      provider_ids: { ...v1.provider_ids, pix_txid: null },
      paid_at: null,
      payer: null,
      card: null,
      nfe: { tPag: null, tBand: null, cAut: null, CNPJ: null },
      plan: null,
    });
  });
});

describe('the payment record, through the directory sink', () => {
  let dir: string;
  let h: Harness;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'erp-records-'));
    h = await startHarness({
      env: { ERP_SINK: 'directory', ERP_EXPORT_DIR: dir },
      start: { produceBackoffMs: 50 },
    });
  });
  afterAll(async () => {
    await h.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('is one file per record, payment-<record id>.json, beside the service', async () => {
    const { checkoutId, url } = await opened(h, 1014);
    await press(url, 'pay');
    const record = await eventually(async () => {
      const stored = await h.connector.deps.store.get(checkoutId);
      return stored?.transactionId ? stored : undefined;
    });
    const recordId = recordIdOf(checkoutId, 'paid', record.transactionId);
    await completedJob(h.connector.syncQueue!.queue, `payment-${recordId}`);
    const written = JSON.parse(
      await readFile(path.join(dir, `payment-${recordId}.json`), 'utf8'),
    ) as Body & { checkout_id: string };
    expect(written).toMatchObject({ event: 'paid', record_id: recordId, checkout_id: checkoutId });
    await press(url, 'refund');
    await eventually(async () => {
      const files = await readdir(dir);
      return files.filter((f) => f.startsWith('payment-')).length === 2 ? files : undefined;
    });
    const refundId = recordIdOf(checkoutId, 'refund', record.transactionId);
    const refund = JSON.parse(
      await readFile(path.join(dir, `payment-${refundId}.json`), 'utf8'),
    ) as Body;
    expect(refund).toMatchObject({ event: 'refund', record_id: refundId });
  });
});
