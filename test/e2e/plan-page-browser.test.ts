import path from 'node:path';
import type { Browser } from 'playwright-core';
import { planPage } from '../../src/http/pages/plan-page';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import { DEPOSIT_PLAN } from '../support/plan-views';

/*
 * The connector's own payment page (src/http/pages/plan-page.ts) in a real browser, on a phone
 * (390×844, touch) and a desktop (1280×800): nothing runs off the screen's width, every button is
 * a thumb's size, the split's form opens without script, and the page makes no request of its
 * own. Its screenshots are test-artifacts/plan-page-{390,1280}.png.
 */

describe('the payment page of a plan, in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it.each([
    ['a phone', 390, 844, true],
    ['a desktop', 1280, 800, false],
  ] as const)(
    'on %s (%i px): within the width, thumb-sized buttons, no request of its own',
    async (_, width, height, mobile) => {
      const context = await browser.newContext({
        viewport: { width, height },
        isMobile: mobile,
        hasTouch: mobile,
        javaScriptEnabled: false,
      });
      try {
        const page = await context.newPage();
        const requests: string[] = [];
        page.on('request', (request) => requests.push(request.url()));
        await page.setContent(planPage(DEPOSIT_PLAN), { waitUntil: 'load' });
        const boxes = await page.evaluate<Array<{ x: number; width: number; height: number }>>(
          `[...document.querySelectorAll('button')]
          .filter((b) => b.checkVisibility())
          .map((b) => { const r = b.getBoundingClientRect(); return { x: r.x, width: r.width, height: r.height }; })`,
        );
        // Two ways to pay each part; the split's button is folded away.
        expect(boxes).toHaveLength(4);
        for (const box of boxes) {
          expect(box.height).toBeGreaterThanOrEqual(44);
          expect(box.x + box.width).toBeLessThanOrEqual(width);
        }
        // The split's form opens without script.
        await page.getByText('Pagar de duas formas').click();
        await expect(page.getByLabel('Valor do primeiro pagamento (R$)').isVisible()).resolves.toBe(
          true,
        );
        const scrollWidth = await page.evaluate<number>('document.scrollingElement.scrollWidth');
        expect(scrollWidth).toBeLessThanOrEqual(width);
        await page.screenshot({
          path: path.join(ARTIFACTS, `plan-page-${width}.png`),
          fullPage: true,
        });
        // setContent loads about:blank; nothing else is asked for (no font, image or script).
        expect(
          requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:')),
        ).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
