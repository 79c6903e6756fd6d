import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import { eventually, startHarness, type Harness } from '../support/harness';

/*
 * A shop on a deposit plan (SHOP_PLAN_*), the whole product on loopback and a phone's browser
 * without script: the platform gets the connector's page, the customer pays the deposit by Pix at
 * the sandbox and comes back to the page, the platform gets its one finish, and the balance is
 * paid by card later with no second outcome. Screenshots: test-artifacts/plan-flow-*.png (the
 * page before and after, docs/images/plan-page-{390,1280}.png).
 */
describe('a deposit and its balance, paid on the payment page in a browser', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({
      env: {
        SHOP_NAME: 'Marcenaria Demo',
        PAYMENT_METHODS: 'pix,card',
        CARD_MAX_INSTALLMENTS: '12',
        SHOP_PLAN_DEPOSIT_PERCENT: '30',
        SHOP_PLAN_BALANCE_DUE_DAYS: '20',
        SHOP_PLAN_SPLIT_TENDER: 'true',
      },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  const pageUrl = async (serviceId: number) => {
    expect((await h.simulator.requestCheckout(serviceId)).status).toBe(202);
    return eventually(() => h.simulator.checkoutUrlFor(serviceId), 20_000, 'the page URL');
  };
  const finishes = (serviceId: number) =>
    h.simulator.accepted('finish-checkout').filter((call) => call.serviceId === serviceId);
  const phone = () =>
    browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      javaScriptEnabled: false,
    });
  const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();

  it('hands the platform the page, takes the deposit by Pix, finishes once, then the balance', async () => {
    const url = await pageUrl(1004);
    expect(url).toMatch(new RegExp(`^${h.url}/pay/chk_[0-9a-f]{24}$`));
    const context: BrowserContext = await phone();
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(new URL(request.url()).origin));
      const answer = await page.goto(url);
      expect(answer?.status()).toBe(200);
      await expect(text(page, 'shop-name')).resolves.toBe('Marcenaria Demo');
      await expect(text(page, 'state-deposit')).resolves.toBe('A pagar');
      await page.screenshot({ path: path.join(ARTIFACTS, 'plan-flow-390.png'), fullPage: true });
      // The deposit by Pix: at the sandbox, the Pix under way, back on the page.
      await page.getByTestId('pay-deposit-pix').click();
      await page.waitForURL(/\/sandbox\/checkout\//);
      await page.getByRole('button', { name: 'Pagar com Pix' }).click();
      await page.waitForURL(url);
      await expect(text(page, 'state-deposit')).resolves.toBe('Aguardando confirmação');
      await expect(text(page, 'awaiting')).resolves.toMatch(/atualiza sozinha/);
      expect(finishes(1004)).toHaveLength(0);
      // The bank confirms it (the sandbox's page again): the deposit paid, the platform told.
      await page.goBack();
      await page.waitForURL(/\/sandbox\/checkout\//);
      await page.reload();
      await page.getByRole('button', { name: 'Confirmar o pagamento' }).click();
      await page.waitForURL(url);
      await expect(text(page, 'state-deposit')).resolves.toBe('Pago');
      await eventually(() => (finishes(1004).length === 1 ? true : undefined), 20_000, 'a finish');
      // The balance, later, by card: paid, and nothing more reaches the platform.
      await page.getByTestId('pay-balance-card').click();
      await page.waitForURL(/\/sandbox\/checkout\//);
      await page.getByRole('button', { name: /^Pagar R\$/ }).click();
      await page.waitForURL(url);
      await expect(text(page, 'state-balance')).resolves.toBe('Pago');
      await expect(text(page, 'left')).resolves.toMatch(/^R\$\s0,00$/);
      await page.screenshot({ path: path.join(ARTIFACTS, 'plan-flow-paid-390.png') });
      expect(finishes(1004)).toHaveLength(1);
      expect(h.simulator.accepted('cancel-checkout').filter((c) => c.serviceId === 1004)).toEqual(
        [],
      );
      // Only the connector's own origin was asked for anything.
      expect([...new Set(requests)]).toEqual([h.url]);
    } finally {
      await context.close();
    }
  });

  it('answers a bad amount with the page saying why, never JSON or a 5xx', async () => {
    const url = await pageUrl(1005);
    const context = await phone();
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.getByText('Pagar de duas formas').click();
      await page.getByLabel('Valor do primeiro pagamento (R$)').fill('0,50');
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/start')),
        page.getByTestId('split-deposit').click(),
      ]);
      expect(answer.status()).toBe(422);
      expect(answer.headers()['content-type']).toMatch(/^text\/html/);
      await expect(text(page, 'problem')).resolves.toMatch(
        /^O primeiro valor deve ficar entre R\$\u00a01,00 e R\$\u00a0/,
      );
      // Posted by hand: a part that is none, a body that is no form, an unknown checkout.
      const post = (to: string, body: string, type = 'application/x-www-form-urlencoded') =>
        fetch(`${to}/start`, { method: 'POST', headers: { 'content-type': type }, body });
      for (const [to, body, status] of [
        [url, 'part=nothing&method=pix', 400],
        [url, 'part=deposit&method=cash', 422],
        [url, `part=split-1&method=pix&amount=${'9'.repeat(3000)}`, 413],
        [`${h.url}/pay/chk_0123456789abcdef01234567`, 'part=deposit&method=pix', 404],
      ] as const) {
        const response = await post(to, body);
        expect([to.slice(-6), response.status]).toEqual([to.slice(-6), status]);
        expect(response.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await response.text()).toMatch(/^<!doctype html>/);
      }
      // Another site's page posting a choice in the customer's browser; a wrong method; a path
      // that is none: each a page.
      for (const [response, status] of [
        [
          await fetch(`${url}/start`, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'sec-fetch-site': 'cross-site',
            },
            body: 'part=deposit&method=pix',
          }),
          403,
        ],
        [await fetch(`${url}/start`), 405],
        [await fetch(`${url}/elsewhere`), 404],
        [await fetch(`${h.url}/pay/`), 404],
      ] as const) {
        expect([response.url, response.status]).toEqual([response.url, status]);
        expect(await response.text()).toMatch(/^<!doctype html>/);
      }
      expect(
        (await h.connector.deps.store.get(new URL(url).pathname.slice(5)))?.partCheckouts,
      ).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it.each([
    [390, 844, true],
    [1280, 800, false],
  ] as const)('shows the plan within %i px', async (width, height, mobile) => {
    const url = await pageUrl(width === 390 ? 1006 : 1007);
    const context = await browser.newContext({
      viewport: { width, height },
      isMobile: mobile,
      hasTouch: mobile,
      javaScriptEnabled: false,
    });
    try {
      const page = await context.newPage();
      await page.goto(url);
      const scrollWidth = await page.evaluate<number>('document.scrollingElement.scrollWidth');
      expect(scrollWidth).toBeLessThanOrEqual(width);
      await page.screenshot({
        path: path.join(ARTIFACTS, `plan-page-${width}.png`),
        fullPage: true,
      });
    } finally {
      await context.close();
    }
  });
});
