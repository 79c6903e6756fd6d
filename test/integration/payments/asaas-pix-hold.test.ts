import { FakeAsaas, type FakeCheckout, type FakePayment } from '../../support/fake-asaas';
import { eventually, settled, WAIT_DEADLINE_MS } from '../../support/harness';
import { providerSuite } from '../../support/provider-suite';

/*
 * Asaas's precautionary hold on a Pix ("bloqueio cautelar"): a Pix may sit in CONFIRMED for up to
 * 72 hours, then become RECEIVED or REFUNDED (CONTRACT, "A held Pix is not paid"). The platform's
 * finish starts production: it waits for RECEIVED, and a Pix refunded from the hold never sends it.
 */
describe('a Pix Asaas holds (CONFIRMED) is not paid', () => {
  const suite = providerSuite(() => new FakeAsaas());
  const webhooks = () => `${suite.h.url}/webhooks/asaas`;

  /** A checkout of `serviceId` whose customer paid by Pix, held by Asaas, and its event sent. */
  async function held(serviceId: number): Promise<{ checkoutId: string; pix: FakePayment[] }> {
    const { checkoutId } = await suite.open(serviceId);
    const checkout: FakeCheckout = suite.fake.checkoutFor(checkoutId)!;
    const pix = suite.fake.pay(checkout, { billingType: 'PIX', status: 'CONFIRMED' });
    const hook = await suite.fake.notify(
      webhooks(),
      suite.fake.event('PAYMENT_CONFIRMED', { payment: pix[0]! }),
    );
    expect(hook.body).toMatchObject({ checkout_id: checkoutId, state: 'processing' });
    const record = await suite.h.connector.deps.store.get(checkoutId);
    expect(record).toMatchObject({ state: 'processing', method: 'pix' });
    return { checkoutId, pix };
  }

  // How Asaas ends the hold, the event it posts, what the connector reads, what the platform gets.
  it.each([
    ['RECEIVED', 'PAYMENT_RECEIVED', 'paid', 'finish-checkout', 1021],
    ['REFUNDED', 'PAYMENT_REFUNDED', 'declined', 'cancel-checkout', 1022],
  ] as const)(
    'sends nothing while held; once %s (%s) the checkout is %s and the platform gets one %s',
    async (status, event, state, endpoint, serviceId) => {
      const { checkoutId, pix } = await held(serviceId);
      await settled(suite.h.connector.jobs);
      expect(suite.accepted('finish-checkout', serviceId)).toEqual([]);
      suite.fake.update(pix, status);
      const hook = await suite.fake.notify(
        webhooks(),
        suite.fake.event(event, { payment: pix[0]! }),
      );
      expect(hook.body).toMatchObject({ state });
      await eventually(() => suite.accepted(endpoint, serviceId)[0], WAIT_DEADLINE_MS, endpoint);
      const { sent } = await suite.outcomeOf(checkoutId, serviceId);
      expect(sent.map((call) => call.endpoint)).toEqual([endpoint]);
    },
  );

  it("finishes a card's CONFIRMED at once, as before (approved; credited later)", async () => {
    const { checkoutId } = await suite.open(1023);
    const [card] = suite.fake.pay(suite.fake.checkoutFor(checkoutId)!, {
      billingType: 'CREDIT_CARD',
    });
    const hook = await suite.fake.notify(
      webhooks(),
      suite.fake.event('PAYMENT_CONFIRMED', { payment: card! }),
    );
    expect(hook.body).toMatchObject({ state: 'paid' });
    await eventually(() => suite.accepted('finish-checkout', 1023)[0], WAIT_DEADLINE_MS, 'finish');
  });
});
