import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import {
  eventually,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../support/harness';

describe('a customer in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({
      env: { SHOP_NAME: 'Marcenaria Silva', SHOP_SITE_URL: 'https://silva.example/pedidos' },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  async function openCheckout(serviceId: number) {
    expect((await h.simulator.requestCheckout(serviceId)).status).toBe(202);
    const url = await eventually(
      () => h.simulator.checkoutUrlFor(serviceId),
      WAIT_DEADLINE_MS,
      'checkout url',
    );
    const page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
    await page.goto(url);
    return page;
  }

  it('pays on the sandbox page and the platform receives the finish', async () => {
    const page = await openCheckout(1001);
    await expect(page.getByRole('heading', { name: 'Pedido nº 1001' }).isVisible()).resolves.toBe(
      true,
    );
    await expect(page.getByTestId('shop-name').textContent()).resolves.toBe('Marcenaria Silva');
    const total = (await page.getByTestId('total').textContent()) ?? '';
    expect(total).toMatch(/^R\$\s[\d.]+,\d{2}$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sandbox-checkout.png'), fullPage: true });

    await page.getByRole('button', { name: `Pagar ${total}` }).click();
    await page.waitForURL(/\/return\/sandbox\?checkout_id=chk_/);
    await expect(page.getByTestId('outcome').textContent()).resolves.toBe('Pagamento confirmado');
    // The page names the shop, and leads back to its site.
    await expect(page.getByTestId('shop-name').textContent()).resolves.toBe('Marcenaria Silva');
    const back = page.getByRole('link', { name: 'Voltar à loja Marcenaria Silva' });
    await expect(back.getAttribute('href')).resolves.toBe('https://silva.example/pedidos');
    await page.screenshot({ path: path.join(ARTIFACTS, 'return-paid.png') });

    const finish = await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1001),
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toMatchObject({ service_id: 1001 });
    await page.close();
  });

  it('declines on the sandbox page and the platform receives the cancel', async () => {
    const page = await openCheckout(1002);
    await page.getByRole('button', { name: 'Recusar pagamento' }).click();
    await page.waitForURL(/\/return\/sandbox/);
    await expect(page.getByTestId('outcome').textContent()).resolves.toBe(
      'Pagamento não concluído',
    );
    await expect(
      page.getByRole('link', { name: 'Voltar à loja Marcenaria Silva' }).isVisible(),
    ).resolves.toBe(true);
    const cancel = await eventually(
      () => h.simulator.accepted('cancel-checkout').find((c) => c.serviceId === 1002),
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1002, reason: 'declined in the sandbox' });
    expect(
      h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1002),
    ).toHaveLength(0);
    await page.close();
  });

  it('pays by Pix: processing first, paid once the Pix is confirmed', async () => {
    const page = await openCheckout(1004);
    const checkoutUrl = page.url();
    await page.getByRole('button', { name: 'Pagar com Pix' }).click();
    await page.waitForURL(/\/return\/sandbox/);
    await expect(page.getByTestId('outcome').textContent()).resolves.toBe('Aguardando o Pix');
    await expect(page.getByText('boleto').count()).resolves.toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'return-processing.png') });
    await settled(h.connector.jobs);
    expect(h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1004)).toEqual([]);

    await page.goto(checkoutUrl);
    await page.getByRole('button', { name: 'Confirmar o pagamento' }).click();
    await page.waitForURL(/\/return\/sandbox/);
    await expect(page.getByTestId('outcome').textContent()).resolves.toBe('Pagamento confirmado');
    await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1004),
      WAIT_DEADLINE_MS,
      'finish',
    );
    await page.close();
  });

  it('fits a phone screen', async () => {
    expect((await h.simulator.requestCheckout(1003)).status).toBe(202);
    const url = await eventually(() => h.simulator.checkoutUrlFor(1003));
    const page = await browser.newPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await page.goto(url);
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - window.innerWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await expect(page.getByRole('button', { name: /^Pagar R\$/ }).isVisible()).resolves.toBe(true);
    await page.screenshot({
      path: path.join(ARTIFACTS, 'sandbox-checkout-phone.png'),
      fullPage: true,
    });
    await page.close();
  });
});
