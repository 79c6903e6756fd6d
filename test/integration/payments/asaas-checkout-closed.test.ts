import { FakeAsaas, type FakeCheckout } from '../../support/fake-asaas';
import { eventually, settled, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';
import { providerSuite } from '../../support/provider-suite';

/**
 * An Asaas checkout that Asaas itself closes: the shop cancels it in Asaas's panel, or Asaas's
 * clock ends it. Asaas has no read of a checkout, so its authenticated CHECKOUT_CANCELED or
 * CHECKOUT_EXPIRED is the truth about the checkout itself; its payments still decide "paid". The
 * connector's own expiry is far away here (the default), so only the event can close it.
 */
describe('an Asaas checkout closed at Asaas', () => {
  const suite = providerSuite(() => new FakeAsaas());
  let asaas: FakeAsaas;
  let h: Harness;
  beforeAll(() => {
    ({ fake: asaas, h } = suite);
  });

  const webhooks = () => `${h.url}/webhooks/asaas`;
  const stateOf = async (checkoutId: string) =>
    (await h.connector.deps.store.get(checkoutId))?.state;

  async function open(serviceId: number): Promise<{ checkoutId: string; checkout: FakeCheckout }> {
    const { checkoutId } = await suite.open(serviceId);
    const checkout = asaas.checkoutFor(checkoutId);
    if (!checkout) throw new Error(`no Asaas checkout for ${checkoutId}`);
    return { checkoutId, checkout };
  }

  const cancelOf = (serviceId: number) =>
    eventually(() => suite.accepted('cancel-checkout', serviceId)[0], WAIT_DEADLINE_MS, 'cancel');

  it('closes a checkout Asaas expired with nothing paid: the platform gets the cancel', async () => {
    const { checkoutId, checkout } = await open(1021);
    asaas.endCheckout(checkout, 'EXPIRED');
    const answer = await asaas.notify(webhooks(), asaas.event('CHECKOUT_EXPIRED', { checkout }));
    expect(answer).toEqual({
      status: 200,
      body: { received: true, checkout_id: checkoutId, state: 'expired' },
    });
    expect((await cancelOf(1021)).body).toEqual({
      service_id: 1021,
      reason: 'checkout EXPIRED at Asaas',
    });
    await settled(h.connector.jobs);
    expect(suite.accepted('cancel-checkout', 1021)).toHaveLength(1);
    expect(suite.accepted('finish-checkout', 1021)).toEqual([]);
  });

  it('closes a checkout cancelled in Asaas’s panel: the platform gets the cancel', async () => {
    const { checkoutId, checkout } = await open(1022);
    asaas.endCheckout(checkout, 'CANCELED');
    const answer = await asaas.notify(webhooks(), asaas.event('CHECKOUT_CANCELED', { checkout }));
    expect(answer.body).toEqual({ received: true, checkout_id: checkoutId, state: 'declined' });
    expect((await cancelOf(1022)).body).toEqual({
      service_id: 1022,
      reason: 'checkout CANCELED at Asaas',
    });
  });

  it('refuses a CHECKOUT_EXPIRED with a wrong token, and changes nothing', async () => {
    const { checkoutId, checkout } = await open(1023);
    asaas.endCheckout(checkout, 'EXPIRED');
    const event = asaas.event('CHECKOUT_EXPIRED', { checkout });
    for (const token of [`${asaas.webhookToken}x`, null]) {
      const refused = await asaas.notify(webhooks(), event, token);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { code: 'WEBHOOK_SIGNATURE_INVALID' } });
    }
    await settled(h.connector.jobs);
    expect(await stateOf(checkoutId)).toBe('url_sent');
    expect(suite.accepted('cancel-checkout', 1023)).toEqual([]);
    // Not even its event id was spent: the same event with the token is acted on.
    const answer = await asaas.notify(webhooks(), event);
    expect(answer.body).toMatchObject({ checkout_id: checkoutId, state: 'expired' });
  });

  it('keeps a checkout cancelled at Asaas open while its Pix can still be paid', async () => {
    const { checkoutId, checkout } = await open(1024);
    const pix = asaas.pay(checkout, { billingType: 'PIX' });
    asaas.endCheckout(checkout, 'CANCELED');
    const answer = await asaas.notify(webhooks(), asaas.event('CHECKOUT_CANCELED', { checkout }));
    expect(answer.body).toEqual({ received: true, checkout_id: checkoutId, state: 'processing' });
    await settled(h.connector.jobs);
    expect(suite.accepted('cancel-checkout', 1024)).toEqual([]);
    // The Pix arrives: paid, and the platform gets the finish, never a cancel.
    asaas.update(pix, 'RECEIVED');
    const paid = await asaas.notify(
      webhooks(),
      asaas.event('PAYMENT_RECEIVED', { payment: pix[0]! }),
    );
    expect(paid.body).toMatchObject({ state: 'paid' });
    await eventually(() => suite.accepted('finish-checkout', 1024)[0], WAIT_DEADLINE_MS, 'finish');
    await settled(h.connector.jobs);
    expect(suite.accepted('cancel-checkout', 1024)).toEqual([]);
  });

  it('lets a paid payment win over a CHECKOUT_EXPIRED that arrives first', async () => {
    const { checkoutId, checkout } = await open(1025);
    const [card] = asaas.pay(checkout, { billingType: 'CREDIT_CARD' });
    // Its payment's own event was lost; the checkout's comes.
    const answer = await asaas.notify(webhooks(), asaas.event('CHECKOUT_EXPIRED', { checkout }));
    expect(answer.body).toEqual({ received: true, checkout_id: checkoutId, state: 'paid' });
    const finish = await eventually(
      () => suite.accepted('finish-checkout', 1025)[0],
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toEqual({ service_id: 1025, transaction_id: card!.id });
    await settled(h.connector.jobs);
    expect(suite.accepted('cancel-checkout', 1025)).toEqual([]);
  });

  it('reports a payment confirmed after the cancel as a late payment, never a finish', async () => {
    const { checkoutId, checkout } = await open(1026);
    asaas.endCheckout(checkout, 'CANCELED');
    await asaas.notify(webhooks(), asaas.event('CHECKOUT_CANCELED', { checkout }));
    await cancelOf(1026);
    const [late] = asaas.pay(checkout, { billingType: 'PIX', status: 'RECEIVED', late: true });
    const answer = await asaas.notify(
      webhooks(),
      asaas.event('PAYMENT_RECEIVED', { payment: late! }),
    );
    expect(answer.body).toMatchObject({ checkout_id: checkoutId, incident: 'late_payment' });
    const record = await h.connector.deps.store.get(checkoutId);
    expect(record).toMatchObject({ outcome: 'declined' });
    expect(record?.incidents).toEqual([
      expect.objectContaining({ kind: 'late_payment', transactionId: late!.id }),
    ]);
    await settled(h.connector.jobs);
    expect(suite.accepted('finish-checkout', 1026)).toEqual([]);
    expect(suite.accepted('cancel-checkout', 1026)).toHaveLength(1);
  });
});
