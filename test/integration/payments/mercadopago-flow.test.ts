import { jobIds } from '../../../src/jobs/queue-names';
import { FakeMercadoPago } from '../../support/fake-mercadopago';
import {
  completedJob,
  eventually,
  settled,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';
import { checkoutIdOf, providerSuite } from '../../support/provider-suite';

describe('PAYMENT_PROVIDER=mercadopago against a loopback Mercado Pago', () => {
  const suite = providerSuite(() => new FakeMercadoPago(), {
    env: { CARD_MAX_INSTALLMENTS: '12' },
    start: { produceBackoffMs: 50 },
  });
  let mp: FakeMercadoPago;
  let h: Harness;
  beforeAll(() => {
    ({ fake: mp, h } = suite);
  });

  const webhooks = () => `${h.url}/webhooks/mercadopago`;
  const accepted = suite.accepted.bind(suite);

  async function open(serviceId: number) {
    const { checkoutId, url } = await suite.open(serviceId);
    const preference = mp.preferenceFor(checkoutId);
    if (!preference) throw new Error(`no preference for ${checkoutId}`);
    expect(url).toBe(preference.init_point);
    return { checkoutId, preference };
  }

  it('creates one Checkout Pro preference per checkout, as Mercado Pago documents it', async () => {
    const { checkoutId, preference } = await open(1001);
    const record = await h.connector.deps.store.get(checkoutId);
    expect(preference).toMatchObject({
      external_reference: checkoutId,
      items: [
        {
          quantity: 1,
          unit_price: (record?.amount?.amountMinor ?? 0) / 100,
          currency_id: 'BRL',
        },
      ],
      back_urls: { success: `${h.url}/return/mercadopago?checkout_id=${checkoutId}` },
      auto_return: 'approved',
      notification_url: `${h.url}/webhooks/mercadopago`,
      expires: true,
      expiration_date_to: expect.stringMatching(/-03:00$/),
      // Every method (none excluded), a card in up to CARD_MAX_INSTALLMENTS.
      payment_methods: { excluded_payment_types: [], installments: 12 },
    });
    const create = mp.requests.find((r) => r.idempotencyKey === `checkout:${checkoutId}`);
    expect(create?.path).toBe('/checkout/preferences');
  });

  it('refuses a wrong secret, an altered data.id and a stale ts, and changes nothing', async () => {
    const { checkoutId } = await open(1003);
    // No payment exists: a forged notification must be refused before anything is read.
    const payment = { id: 1_399_999_999 };
    for (const forged of [
      { secret: 'another-secret-0123456789' },
      { signedDataId: '999' },
      { ts: String(Date.now() - 3_600_000) },
    ]) {
      const answer = await mp.notify(webhooks(), payment, forged);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'WEBHOOK_SIGNATURE_INVALID' } });
    }
    expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('url_sent');
  });

  it('handles a notification once, however often it comes', async () => {
    const { preference } = await open(1004);
    const payment = mp.pay(preference, 'approved');
    const once = { notificationId: 42_004 };
    expect((await mp.notify(webhooks(), payment, once)).body).toMatchObject({ state: 'paid' });
    expect((await mp.notify(webhooks(), payment, once)).body).toEqual({
      received: true,
      duplicate: true,
    });
    await settled(h.connector.jobs);
    expect(accepted('finish-checkout', 1004)).toHaveLength(1);
  });

  it('keeps a pending Pix processing until it is approved', async () => {
    const { checkoutId, preference } = await open(1005);
    const payment = mp.pay(preference, 'pending', undefined, { paymentType: 'bank_transfer' });
    expect((await mp.notify(webhooks(), payment)).body).toMatchObject({ state: 'processing' });
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('pix');
    const page = await (
      await fetch(`${h.url}/return/mercadopago?checkout_id=${checkoutId}`)
    ).text();
    expect(page).toContain('Aguardando o Pix');
    expect(page).not.toMatch(/boleto/i);
    mp.update(payment, 'approved');
    expect((await mp.notify(webhooks(), payment)).body).toMatchObject({ state: 'paid' });
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('pix');
  });

  it('records the method of the payment that tells: a refused card, a boleto, then a Pix', async () => {
    const { checkoutId, preference } = await open(1007);
    const method = async () => (await h.connector.deps.store.get(checkoutId))?.method;
    const refused = mp.pay(preference, 'rejected');
    expect((await mp.notify(webhooks(), refused)).body).toMatchObject({ state: 'url_sent' });
    // A refused attempt tells nothing: no method yet.
    expect(await method()).toBeUndefined();
    const boleto = mp.pay(preference, 'pending', undefined, { paymentType: 'ticket' });
    expect((await mp.notify(webhooks(), boleto)).body).toMatchObject({ state: 'processing' });
    expect(await method()).toBe('boleto');
    // The customer then chooses Pix: the newer payment under way is the one that tells.
    const pix = mp.pay(preference, 'pending', undefined, { paymentType: 'bank_transfer' });
    expect((await mp.notify(webhooks(), pix)).body).toMatchObject({ state: 'processing' });
    expect(await method()).toBe('pix');
    mp.update(pix, 'approved');
    expect((await mp.notify(webhooks(), pix)).body).toMatchObject({ state: 'paid' });
    expect(await h.connector.deps.store.get(checkoutId)).toMatchObject({
      outcome: 'paid',
      transactionId: String(pix.id),
      method: 'pix',
    });
  });

  it('records a debit card as a card, and no method for what is none of the three', async () => {
    const { checkoutId: debit, preference } = await open(1008);
    const payment = mp.pay(preference, 'approved', undefined, {
      paymentType: 'debit_card',
      // Mercado Pago's id of the CAIXA virtual debit card (its Brazilian methods' list).
      paymentMethod: 'debcabal',
    });
    expect((await mp.notify(webhooks(), payment)).body).toMatchObject({ state: 'paid' });
    expect((await h.connector.deps.store.get(debit))?.method).toBe('card');
    // Mercado Pago's balance (account_money) is no card, Pix or boleto: the record says none.
    const { checkoutId: balance, preference: second } = await open(1013);
    const fromBalance = mp.pay(second, 'approved', undefined, { paymentType: 'account_money' });
    expect((await mp.notify(webhooks(), fromBalance)).body).toMatchObject({ state: 'paid' });
    const record = await h.connector.deps.store.get(balance);
    expect(record?.outcome).toBe('paid');
    expect(record).not.toHaveProperty('method');
  });

  it('keeps a checkout payable after a refused card, so a second card can still pay it', async () => {
    const { checkoutId, preference } = await open(1006);
    const refused = mp.pay(preference, 'rejected');
    expect((await mp.notify(webhooks(), refused)).body).toMatchObject({ state: 'url_sent' });
    await settled(h.connector.jobs);
    expect(accepted('cancel-checkout', 1006)).toEqual([]);
    const second = mp.pay(preference, 'approved');
    expect((await mp.notify(webhooks(), second)).body).toMatchObject({ state: 'paid' });
    expect((await h.connector.deps.store.get(checkoutId))?.transactionId).toBe(String(second.id));
    await eventually(() => accepted('finish-checkout', 1006)[0], WAIT_DEADLINE_MS, 'finish');
  });

  it('pays a card in installments with the financing Mercado Pago reports, recording both', async () => {
    const { checkoutId, preference } = await open(1011);
    const order = (await h.connector.deps.store.get(checkoutId))!.amount!;
    const payment = mp.pay(preference, 'approved', undefined, { installments: 10, interest: 98.5 });
    expect((await mp.notify(webhooks(), payment)).body).toMatchObject({ state: 'paid' });
    expect(await h.connector.deps.store.get(checkoutId)).toMatchObject({
      collected: { amountMinor: order.amountMinor + 9_850 },
      interest: { amountMinor: 9_850 },
    });
    // A total above the price with no financing fee is no payment of this order.
    const { checkoutId: other, preference: second } = await open(1012);
    const odd = mp.pay(second, 'approved');
    odd.transaction_details.total_paid_amount += 10;
    await mp.notify(webhooks(), odd);
    expect((await h.connector.deps.store.get(other))?.state).toBe('url_sent');
  });

  it('acknowledges a payment it does not know, and topics it does not use', async () => {
    const stranger = mp.pay(
      { ...(await open(1009)).preference, external_reference: 'chk_000000000000000000000000' },
      'approved',
    );
    expect((await mp.notify(webhooks(), stranger)).body).toEqual({
      received: true,
      ignored: 'unknown payment',
    });
    expect((await mp.notify(webhooks(), stranger, { type: 'merchant_order' })).body).toEqual({
      received: true,
      ignored: 'topic merchant_order is not used',
    });
  });
});

describe('a Mercado Pago checkout nobody pays', () => {
  const suite = providerSuite(() => new FakeMercadoPago(), { start: { expiryMs: 3000 } });
  let mp: FakeMercadoPago;
  let h: Harness;
  beforeAll(() => {
    ({ fake: mp, h } = suite);
  });

  it('closes the preference when the checkout expires, and cancels, refused attempts or not', async () => {
    const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(1010));
    await eventually(() => h.simulator.checkoutUrlFor(1010), WAIT_DEADLINE_MS, 'url');
    const preference = mp.preferenceFor(checkoutId)!;
    mp.pay(preference, 'rejected');
    const cancel = await eventually(
      () => h.simulator.accepted('cancel-checkout').find((c) => c.serviceId === 1010),
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1010, reason: 'checkout expired' });
    expect(mp.payable(preference)).toBe(false);
    // Closed by the connector itself, not only by the preference's own expiration date.
    expect(
      mp.requests.some(
        (r) => r.method === 'PUT' && r.path === `/checkout/preferences/${preference.id}`,
      ),
    ).toBe(true);
  });

  it('keeps a boleto issued before the expiry processing past it, and finishes when it settles', async () => {
    const checkoutId = checkoutIdOf(await h.simulator.requestCheckout(1016));
    await eventually(() => h.simulator.checkoutUrlFor(1016), WAIT_DEADLINE_MS, 'url');
    const boleto = mp.pay(mp.preferenceFor(checkoutId)!, 'pending', undefined, {
      paymentType: 'ticket',
    });
    const record = (await h.connector.deps.store.get(checkoutId))!;
    const check = await completedJob(
      h.connector.jobs.checkoutQueue,
      jobIds.expire(checkoutId, new Date(record.expiresAt)),
    );
    expect(check.returnvalue).toBe('recheck');
    expect(await h.connector.deps.store.get(checkoutId)).toMatchObject({
      state: 'processing',
      method: 'boleto',
    });
    expect(h.simulator.accepted('cancel-checkout').filter((c) => c.serviceId === 1016)).toEqual([]);
    // Days later the bank settles it.
    mp.update(boleto, 'approved');
    expect((await mp.notify(`${h.url}/webhooks/mercadopago`, boleto)).body).toMatchObject({
      state: 'paid',
    });
    await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1016),
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect((await h.connector.deps.store.get(checkoutId))?.method).toBe('boleto');
  });
});

describe('incidents from Mercado Pago: a Pix paid after the checkout expired', () => {
  const suite = providerSuite(() => new FakeMercadoPago(), {
    start: { expiryMs: 3000, produceBackoffMs: 50 },
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
