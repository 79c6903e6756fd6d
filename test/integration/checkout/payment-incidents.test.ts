import { randomBytes } from 'node:crypto';
import { runCliCaptured } from '../../support/cli';
import { FakeAsaas } from '../../support/fake-asaas';
import { FakeErp } from '../../support/fake-erp';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';
import {
  eventually,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';
import { checkoutIdOf, providerSuite } from '../../support/provider-suite';

/*
 * Incidents after the outcome (CONTRACT "Guarantees", docs/payment-providers.md, "Incidents after the outcome"): a
 * refund or a chargeback after a finish, a payment after a cancel. Never a second finish or a
 * cancel; recorded on the checkout (its story), counted, logged, and sent to the ERP.
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
      // The incident's record: the same payment as the provider reports it after the refund.
      expect(delivered.body).toEqual({
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
        provider_ids: { payment: record?.transactionId, pix_e2e: null },
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

describe('incidents from Asaas: a refund and a chargeback of a paid checkout', () => {
  const suite = providerSuite(() => new FakeAsaas(), { start: { produceBackoffMs: 50 } });

  it('records each from its event, once, and never reports again', async () => {
    const { fake: asaas, h } = suite;
    const webhooks = `${h.url}/webhooks/asaas`;
    const { checkoutId } = await suite.open(1004);
    const checkout = asaas.checkoutFor(checkoutId)!;
    const paid = asaas.pay(checkout, { billingType: 'CREDIT_CARD' });
    await asaas.notify(webhooks, asaas.event('PAYMENT_CONFIRMED', { payment: paid[0]! }));
    await eventually(() => suite.accepted('finish-checkout', 1004)[0], WAIT_DEADLINE_MS, 'finish');

    asaas.update(paid, 'REFUNDED');
    const refund = await asaas.notify(
      webhooks,
      asaas.event('PAYMENT_REFUNDED', { payment: paid[0]! }),
    );
    expect(refund.body).toMatchObject({ checkout_id: checkoutId, incident: 'refund' });
    asaas.update(paid, 'CHARGEBACK_REQUESTED');
    const chargeback = await asaas.notify(
      webhooks,
      asaas.event('PAYMENT_CHARGEBACK_REQUESTED', { payment: paid[0]! }),
    );
    expect(chargeback.body).toMatchObject({ incident: 'chargeback' });
    // Asaas delivers again (another event id): nothing new.
    const again = await asaas.notify(
      webhooks,
      asaas.event('PAYMENT_CHARGEBACK_REQUESTED', { payment: paid[0]! }),
    );
    expect(again.body).not.toHaveProperty('incident');

    const record = await h.connector.deps.store.get(checkoutId);
    expect(record?.incidents).toEqual([
      expect.objectContaining({ kind: 'refund', transactionId: paid[0]!.id }),
      expect.objectContaining({ kind: 'chargeback', transactionId: paid[0]!.id }),
    ]);
    await settled(h.connector.jobs);
    expect(suite.accepted('finish-checkout', 1004)).toHaveLength(1);
    expect(suite.accepted('cancel-checkout', 1004)).toEqual([]);
  });
});

describe('incidents from Stripe: a refund and a dispute of a paid checkout', () => {
  const suite = providerSuite(() => new FakeStripe(), { start: { produceBackoffMs: 50 } });

  it('learns each from its charge event, through the PaymentIntent, once', async () => {
    const { fake: stripe, h } = suite;
    const webhooks = `${h.url}/webhooks/stripe`;
    const { checkoutId } = await suite.open(1006);
    const session = [...stripe.sessions.values()].find(
      (s) => s.client_reference_id === checkoutId,
    )!;
    stripe.pay(session.id, 'card');
    await stripe.deliver(webhooks, stripe.event('checkout.session.completed', session));
    await eventually(() => suite.accepted('finish-checkout', 1006)[0], WAIT_DEADLINE_MS, 'finish');

    const refunded = stripe.refund(session.id);
    const refund = await stripe.deliver(webhooks, stripe.event('charge.refunded', refunded));
    expect(refund.body).toMatchObject({ checkout_id: checkoutId, incident: 'refund' });
    const dispute = stripe.dispute(session.id);
    const disputed = await stripe.deliver(
      webhooks,
      stripe.event('charge.dispute.created', dispute),
    );
    expect(disputed.body).toMatchObject({ incident: 'chargeback' });

    const record = await h.connector.deps.store.get(checkoutId);
    expect(record?.incidents).toEqual([
      expect.objectContaining({ kind: 'refund', note: 'refunded at Stripe' }),
      expect.objectContaining({ kind: 'chargeback', note: 'disputed at Stripe' }),
    ]);
    await settled(h.connector.jobs);
    expect(suite.accepted('finish-checkout', 1006)).toHaveLength(1);
    expect(suite.accepted('cancel-checkout', 1006)).toEqual([]);
  });
});

describe('incidents from Mercado Pago: a Pix paid after the checkout expired', () => {
  const suite = providerSuite(() => new FakeMercadoPago(), {
    start: { expiryMs: 1500, produceBackoffMs: 50 },
  });

  it('is a late payment, which the story says Mercado Pago refunds by itself; its refund follows', async () => {
    const { fake: mp, h } = suite;
    const webhooks = `${h.url}/webhooks/mercadopago`;
    const { checkoutId } = await suite.open(1005);
    const preference = mp.preferenceFor(checkoutId)!;
    await eventually(() => suite.accepted('cancel-checkout', 1005)[0], WAIT_DEADLINE_MS, 'cancel');
    // A Pix code the customer had open is paid after the checkout closed.
    preference.expiration_date_to = undefined;
    const late = mp.pay(preference, 'approved', undefined, { paymentType: 'bank_transfer' });
    const answer = await mp.notify(webhooks, late);
    expect(answer.body).toMatchObject({ state: 'reported', incident: 'late_payment' });
    mp.update(late, 'refunded');
    expect((await mp.notify(webhooks, late)).body).toMatchObject({ incident: 'refund' });

    const record = await h.connector.deps.store.get(checkoutId);
    expect(record?.incidents).toEqual([
      expect.objectContaining({
        kind: 'late_payment',
        transactionId: String(late.id),
        note: expect.stringContaining(
          'Mercado Pago refunds a Pix paid after its checkout closed by itself',
        ),
      }),
      expect.objectContaining({ kind: 'refund', note: 'of the late payment' }),
    ]);
    await settled(h.connector.jobs);
    expect(suite.accepted('finish-checkout', 1005)).toEqual([]);
    expect(suite.accepted('cancel-checkout', 1005)).toHaveLength(1);
  });
});
