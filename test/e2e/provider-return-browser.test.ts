import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import { providerSuite } from '../support/provider-suite';
import { TEST_PROVIDER_LIST, type ReturnPages } from '../support/providers';

/**
 * The customer comes back from a real provider's page (Stripe's success and cancel URLs, Mercado
 * Pago's back_urls...): every provider whose test registry row has return pages, in each case it
 * has. A browser opens exactly the URLs the connector gave the provider.
 */
const CASES: ReadonlyArray<{
  case: keyof ReturnPages<unknown>;
  title: string;
  outcome: string;
  /** The screenshot's name: return-<provider>-<name>.png. */
  screenshot?: string;
}> = [
  {
    case: 'paid',
    title: 'says paid after a payment, with no webhook yet',
    outcome: 'Pagamento confirmado',
    screenshot: 'paid',
  },
  {
    case: 'failed',
    title: 'says the payment failed (a refused card, a failed Pix), the link still valid',
    outcome: 'Pagamento não concluído',
  },
  {
    case: 'pixPending',
    title: 'says what to expect of a pending Pix',
    outcome: 'Aguardando o Pix',
    screenshot: 'pix',
  },
  {
    case: 'left',
    title: 'tells a customer who left without paying that the link still works',
    outcome: 'Pagamento não concluído',
    screenshot: 'left',
  },
];

const WITH_RETURNS = TEST_PROVIDER_LIST.flatMap((row) =>
  row.returns ? [[row.name, row, row.returns] as const] : [],
);

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

  describe.each(WITH_RETURNS)('%s', (name, row, returns) => {
    const suite = providerSuite(() => row.fake(), { fakeEnv: (fake) => row.env(fake) });

    // Each case its own checkout: services 1001, 1002... of the platform simulator.
    for (const [i, each] of CASES.entries()) {
      const returnTo = returns[each.case];
      if (returnTo)
        it(each.title, async () => {
          const { checkoutId } = await suite.open(1001 + i);
          const url = returnTo(suite.fake, checkoutId);
          const screenshot = each.screenshot && `return-${name}-${each.screenshot}.png`;
          expect(await outcomeAt(url, screenshot)).toBe(each.outcome);
        });
    }
  });
});
