import { randomBytes } from 'node:crypto';
import { runCliCaptured } from '../../support/cli';
import { FakeErp } from '../../support/fake-erp';
import {
  eventually,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';
import { checkoutIdOf, providerSuite } from '../../support/provider-suite';
import { TEST_PROVIDER_LIST, type FlowDriver } from '../../support/providers';

/*
 * Incidents after the outcome (CONTRACT "Guarantees", docs/payment-providers.md, "Incidents after the outcome"): a
 * refund or a chargeback after a finish, a payment after a cancel. Never a second finish or a
 * cancel; recorded on the checkout (its story), counted, logged, and sent to the ERP. The
 * sandbox's end to end, then every provider's that can refund and charge back; what one provider
 * does by itself is in its own flow test (Mercado Pago's refund of a late Pix).
 */
const SECRET = `erp-${randomBytes(12).toString('hex')}`;

interface Story {
  checkout_id: string;
  incidents: Array<{ kind: string; transaction_id?: string; note?: string }>;
  steps: Array<{ step: string; note?: string }>;
}

describe('incidents after the outcome, end to end: the metric, the story, the ERP', () => {
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

  const accepted = (endpoint: 'finish-checkout' | 'cancel-checkout', serviceId: number) =>
    h.simulator.accepted(endpoint).filter((c) => c.serviceId === serviceId);

  /** A sandbox checkout of `serviceId`, settled by `action` and its notification delivered. */
  async function settledCheckout(serviceId: number, action: 'pay' | 'decline') {
    const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(serviceId));
    const url = await eventually(() => h.simulator.checkoutUrlFor(serviceId));
    await fetch(`${url}/${action}`, { method: 'POST', redirect: 'manual' });
    const endpoint = action === 'pay' ? 'finish-checkout' : 'cancel-checkout';
    await eventually(() => accepted(endpoint, serviceId)[0], WAIT_DEADLINE_MS, endpoint);
    await eventually(async () =>
      (await h.connector.deps.store.get(checkoutId))?.state === 'reported' ? true : undefined,
    );
    return { checkoutId, url };
  }

  const simulate = (url: string, what: 'refund' | 'chargeback' | 'late-pay') =>
    fetch(`${url}/${what}`, { method: 'POST', redirect: 'manual' });

  const counted = async (kind: string): Promise<number> => {
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const line = new RegExp(`^connector_payment_incidents_total\\{kind="${kind}"\\} (\\d+)$`, 'm');
    return Number(line.exec(text)?.[1]);
  };

  const story = async (serviceId: number): Promise<Story> => {
    const result = await runCliCaptured(
      ['checkout', 'status', String(serviceId), '--format', 'json'],
      { REDIS_URL: h.redis.url, QUEUE_PREFIX: h.prefix },
    );
    expect(result).toMatchObject({ code: 0 });
    return (JSON.parse(result.stdout) as Story[])[0]!;
  };

  it.each([
    ['refund', 'refund', 'refunded in the sandbox'],
    ['chargeback', 'chargeback', 'charged back in the sandbox'],
  ] as const)(
    'a %s after the finish: recorded once, counted, told in the story, sent to the ERP; no second report',
    async (what, kind, note) => {
      const serviceId = what === 'refund' ? 1001 : 1002;
      const before = await counted(kind);
      const { checkoutId, url } = await settledCheckout(serviceId, 'pay');
      const record = await h.connector.deps.store.get(checkoutId);
      expect((await simulate(url, what)).status).toBe(303);
      // The same news again (a provider retrying its event): one incident still.
      await simulate(url, what);

      const delivered = await eventually(
        () => erp.incidents(checkoutId)[0],
        WAIT_DEADLINE_MS,
        'the incident at the ERP',
      );
      expect(delivered.verified).toBe(true);
      const body = delivered.body as { record_id: string; occurred_at: string };
      expect(body.record_id).toMatch(/^pay_[0-9a-f]{32}$/);
      expect(delivered.deliveryId).toBe(`payment-${body.record_id}`);
      const paid = erp.payments(checkoutId, 'paid');
      expect(paid).toHaveLength(1);
      // The incident's record: the same payment as the provider reports it after the refund,
      // its invoice fields the paid record's (the sandbox's test Visa).
      const invoice = paid[0]!.body as Record<string, unknown>;
      expect(invoice.card).toMatchObject({ brand: 'visa', last4: '4242' });
      expect(delivered.body).toEqual({
        schema_version: 2,
        event: kind,
        record_id: body.record_id,
        shop: 'default',
        service_id: serviceId,
        checkout_id: checkoutId,
        provider: 'sandbox',
        method: 'card',
        installments: 1,
        amounts: {
          order: record?.amount?.amountMinor,
          interest: 0,
          paid: record?.amount?.amountMinor,
          provider_fee: 0,
          vendor_fee: 0,
          net: record?.amount?.amountMinor,
        },
        currency: 'BRL',
        release_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        provider_ids: { payment: record?.transactionId, pix_e2e: null, pix_txid: null },
        paid_at: invoice.paid_at,
        payer: null,
        card: invoice.card,
        nfe: invoice.nfe,
        plan: null,
        occurred_at: body.occurred_at,
        note,
      });
      expect(body.record_id).not.toBe((paid[0]!.body as { record_id: string }).record_id);
      expect(await counted(kind)).toBe(before + 1);
      const told = await story(serviceId);
      expect(told.incidents).toEqual([
        { kind, transaction_id: record?.transactionId, note, at: expect.any(String) },
      ]);
      expect(told.steps.map((step) => step.step)).toContain(`incident: ${kind}`);

      await settled(h.connector.jobs);
      expect(erp.incidents(checkoutId)).toHaveLength(1);
      expect(accepted('finish-checkout', serviceId)).toHaveLength(1);
      expect(accepted('cancel-checkout', serviceId)).toEqual([]);
      expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('reported');
    },
  );

  it('a payment after the cancel is a late payment: no finish, the shop told', async () => {
    const before = await counted('late_payment');
    const { checkoutId, url } = await settledCheckout(1003, 'decline');
    expect((await simulate(url, 'late-pay')).status).toBe(303);
    const delivered = await eventually(
      () => erp.incidents(checkoutId)[0],
      WAIT_DEADLINE_MS,
      'the incident at the ERP',
    );
    expect(delivered.body).toMatchObject({
      event: 'late_payment',
      note: 'paid after the checkout declined: the platform was told cancel',
    });
    expect(erp.payments(checkoutId, 'paid')).toEqual([]);
    expect(await counted('late_payment')).toBe(before + 1);
    expect((await story(1003)).incidents).toMatchObject([{ kind: 'late_payment' }]);
    await settled(h.connector.jobs);
    expect(accepted('finish-checkout', 1003)).toEqual([]);
    expect(accepted('cancel-checkout', 1003)).toHaveLength(1);
  });
});

/*
 * A refund, then a chargeback, of a payment the platform was told of, at every provider whose
 * fake can do both (the test registry's rows with `incidents`): each told to the connector as the
 * provider tells it, the chargeback twice.
 */
const WITH_INCIDENTS = TEST_PROVIDER_LIST.flatMap((row) =>
  row.incidents ? [[row.name, row, row.incidents] as const] : [],
);

describe.each(WITH_INCIDENTS)(
  'incidents from %s: a refund and a chargeback of a paid checkout',
  (_name, row, incidents) => {
    const suite = providerSuite(() => row.fake(), {
      fakeEnv: (fake) => row.env(fake),
      start: { produceBackoffMs: 50 },
    });
    let driver: FlowDriver<unknown>;
    beforeAll(() => {
      if (!row.flow) throw new Error(`${row.name} has no flow driver`);
      driver = row.flow(suite.fake, suite.h.url);
    });

    it('records each from what the provider tells, once, and never reports again', async () => {
      const { fake, h } = suite;
      const { checkoutId } = await suite.open(1004);
      const paid = driver.pay(checkoutId);
      await driver.notify(paid);
      await eventually(
        () => suite.accepted('finish-checkout', 1004)[0],
        WAIT_DEADLINE_MS,
        'finish',
      );

      const refund = await incidents.refund(fake, h.url, paid)();
      expect(refund.body).toMatchObject({ checkout_id: checkoutId, incident: 'refund' });
      const tellChargeback = incidents.chargeBack(fake, h.url, paid);
      expect((await tellChargeback()).body).toMatchObject({
        checkout_id: checkoutId,
        incident: 'chargeback',
      });
      // The provider delivers it again: nothing new.
      expect((await tellChargeback()).body).not.toHaveProperty('incident');

      const transactionId = driver.transactionIdOf(paid);
      const record = await h.connector.deps.store.get(checkoutId);
      expect(record?.incidents).toEqual([
        expect.objectContaining({ kind: 'refund', transactionId, note: incidents.notes.refund }),
        expect.objectContaining({
          kind: 'chargeback',
          transactionId,
          note: incidents.notes.chargeback,
        }),
      ]);
      await settled(h.connector.jobs);
      expect(suite.accepted('finish-checkout', 1004)).toHaveLength(1);
      expect(suite.accepted('cancel-checkout', 1004)).toEqual([]);
    });
  },
);
