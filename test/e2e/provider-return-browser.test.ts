import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import { FakeMercadoPago } from '../support/fake-mercadopago';
import { FakeStripe } from '../support/fake-stripe';
import { eventually, type Harness, WAIT_DEADLINE_MS } from '../support/harness';
import { providerSuite } from '../support/provider-suite';

/**
 * The customer comes back from a real provider's page: Stripe's success and cancel URLs, Mercado
 * Pago's back_urls. A browser opens exactly the URLs the connector gave the provider.
 */
describe('the return pages in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  async function outcomeAt(url: string, screenshot?: string): Promise<string | null> {
    const page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
    try {
      await page.goto(url);
      if (screenshot) await page.screenshot({ path: path.join(ARTIFACTS, screenshot) });
      return await page.getByTestId('outcome').textContent();
    } finally {
      await page.close();
    }
  }

  describe('stripe', () => {
    const suite = providerSuite(() => new FakeStripe());
    let stripe: FakeStripe;
    let h: Harness;
    beforeAll(() => {
      ({ fake: stripe, h } = suite);
    });

    const sessionOf = async (serviceId: number) => {
      const answer = await h.simulator.requestCheckout(serviceId);
      const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
      await eventually(() => h.simulator.checkoutUrlFor(serviceId), WAIT_DEADLINE_MS, 'url');
      return [...stripe.sessions.values()].find((s) => s.client_reference_id === checkoutId)!;
    };

    it('says paid after a card payment, with no webhook yet', async () => {
      const session = await sessionOf(1001);
      stripe.pay(session.id, 'card');
      expect(await outcomeAt(session.success_url, 'return-stripe-paid.png')).toBe(
        'Pagamento confirmado',
      );
    });

    it('says the payment failed after a failed Pix', async () => {
      const session = await sessionOf(1002);
      stripe.pay(session.id, 'pix');
      stripe.settle(session.id, false);
      expect(await outcomeAt(session.success_url)).toBe('Pagamento não concluído');
    });

    it('tells a customer who left Stripe without paying that the link still works', async () => {
      const session = await sessionOf(1003);
      expect(await outcomeAt(session.cancel_url ?? '', 'return-stripe-left.png')).toBe(
        'Pagamento não concluído',
      );
    });
  });

  describe('mercadopago', () => {
    const suite = providerSuite(() => new FakeMercadoPago());
    let mp: FakeMercadoPago;
    let h: Harness;
    beforeAll(() => {
      ({ fake: mp, h } = suite);
    });

    const preferenceOf = async (serviceId: number) => {
      const answer = await h.simulator.requestCheckout(serviceId);
      const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
      await eventually(() => h.simulator.checkoutUrlFor(serviceId), WAIT_DEADLINE_MS, 'url');
      return mp.preferenceFor(checkoutId)!;
    };

    it('says paid after an approved payment', async () => {
      const preference = await preferenceOf(1004);
      mp.pay(preference, 'approved');
      expect(await outcomeAt(preference.back_urls.success, 'return-mercadopago-paid.png')).toBe(
        'Pagamento confirmado',
      );
    });

    it('says what to expect of a pending Pix', async () => {
      const preference = await preferenceOf(1005);
      mp.pay(preference, 'pending', undefined, { paymentType: 'bank_transfer' });
      expect(await outcomeAt(preference.back_urls.pending, 'return-mercadopago-pix.png')).toBe(
        'Aguardando o Pix',
      );
    });

    it('keeps the link valid after a refused card', async () => {
      const preference = await preferenceOf(1006);
      mp.pay(preference, 'rejected');
      expect(await outcomeAt(preference.back_urls.failure)).toBe('Pagamento não concluído');
    });
  });
});
