import { randomBytes } from 'node:crypto';
import path from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { expireCheckout } from '../../src/checkout/expire-checkout';
import { txidOf } from '../../src/payments/pix/pix-api';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import { eventually, WAIT_DEADLINE_MS } from '../support/harness';
import { PixWorld } from '../support/pix-world';
import { providerSuite } from '../support/provider-suite';

/*
 * The connector's own Pix page (`GET /pix/<checkout id>`), in a real browser, mostly on a phone's
 * screen (390×844, touch), where the customer copies the code into the bank's app: what it
 * shows, that its QR code is the charge's code, that its button copies it, that it moves on by
 * itself once the PSP (a loopback fake over mTLS) says the charge is paid, with no webhook. The
 * phone screenshot, test-artifacts/pix-page.png, is docs/images/pix-page.png.
 */

const SHOP_NAME = 'Marcenaria Boa Vista';
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
};
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

/** Records every CSP violation the page's document sees, from before its first script. */
const WATCH_CSP = `window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});`;

// The reconciler stays out of the way (its default minute): a charge paid with no webhook is
// found by the page's own status poll.
const suite = providerSuite(() => new PixWorld(), { env: { SHOP_NAME } });

describe('the Pix page in a real browser', () => {
  let browser: Browser;
  const contexts = new Set<BrowserContext>();
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  /** A browser context of its own, closed by the test that asked for it (or at the end). */
  async function newContext(options: BrowserContextOptions): Promise<BrowserContext> {
    const context = await browser.newContext(options);
    contexts.add(context);
    context.on('close', () => contexts.delete(context));
    await context.addInitScript({ content: WATCH_CSP });
    return context;
  }

  /** What went wrong on the page: console errors, uncaught errors, CSP violations. */
  function problemsOf(page: Page): () => Promise<string[]> {
    const seen: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text()))
        seen.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => seen.push(`pageerror: ${error.message}`));
    return async () => [
      ...seen,
      ...(
        await page.evaluate<string[]>(
          "Array.isArray(window.__cspViolations) ? window.__cspViolations : ['no CSP watch on the page']",
        )
      ).map((v) => `csp: ${v}`),
    ];
  }

  /** The platform asks for a checkout; the connector makes the charge and gives its page. */
  async function openCheckout(serviceId: number) {
    const { checkoutId, url } = await suite.open(serviceId);
    expect(url).toBe(`${suite.h.url}/pix/${checkoutId}`);
    const cob = suite.fake.pix.cobs.get(txidOf(checkoutId));
    if (!cob) throw new Error(`no charge at the PSP for ${checkoutId}`);
    return { checkoutId, url, txid: cob.txid, code: cob.pixCopiaECola };
  }

  /** A page of `context` at `url`, opened with its watch for problems. */
  async function visit(context: BrowserContext, url: string) {
    const page = await context.newPage();
    const problems = problemsOf(page);
    const response = await page.goto(url);
    return { page, problems, status: response?.status() };
  }

  /** The QR code on the page, as a phone's camera would read it from the screen. */
  async function qrText(page: Page): Promise<string | undefined> {
    const png = PNG.sync.read(await page.getByTestId('pix-qr').screenshot());
    return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
  }

  it('on a phone: the shop, the amount, the expiry, and the copy button first, on screen', async () => {
    const { checkoutId, url } = await openCheckout(1001);
    const record = await suite.h.connector.deps.store.get(checkoutId);
    if (!record?.amount) throw new Error('the checkout has no amount');
    const context = await newContext(PHONE);
    const { page, problems, status } = await visit(context, url);
    expect(status).toBe(200);

    expect(await page.getByTestId('shop-name').textContent()).toBe(SHOP_NAME);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Pague com Pix');
    expect(await page.getByText(`Pedido nº ${record.serviceId}`).count()).toBe(1);
    // The amount in pt-BR: "R$ 1.234,56", the record's.
    const total = await page.getByTestId('total').textContent();
    expect(total).toMatch(/^R\$\u00a0\d{1,3}(\.\d{3})*,\d{2}$/);
    expect(total).toBe(
      new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(
        record.amount.amountMinor / 100,
      ),
    );
    expect(record.amount.currency).toBe('BRL');
    // The expiry, the checkout's, in Brasília time, said so.
    const brasilia = new Intl.DateTimeFormat('pt-BR', {
      dateStyle: 'short',
      timeStyle: 'short',
      timeZone: 'America/Sao_Paulo',
    }).format(new Date(record.expiresAt));
    expect(await page.getByText(/horário de Brasília/).textContent()).toBe(
      `Válido até ${brasilia} (horário de Brasília).`,
    );

    // The copy button is on the first screen, whole, and before the QR code (for another device).
    const copy = page.getByRole('button', { name: 'Copiar código Pix' });
    const button = await copy.boundingBox();
    const qr = await page.getByTestId('pix-qr').boundingBox();
    if (!button || !qr) throw new Error('the copy button or the QR code is not laid out');
    expect(await page.evaluate<number>('window.scrollY')).toBe(0);
    expect(button.x).toBeGreaterThanOrEqual(0);
    expect(button.y).toBeGreaterThanOrEqual(0);
    expect(button.x + button.width).toBeLessThanOrEqual(390);
    expect(button.y + button.height).toBeLessThanOrEqual(844);
    expect(button.height).toBeGreaterThanOrEqual(44);
    expect(qr.y).toBeGreaterThan(button.y + button.height);
    const copyFirst = await page.evaluate<boolean>(
      `!!(document.getElementById('pix-copy').compareDocumentPosition(
        document.querySelector('[data-testid="pix-qr"]')) & Node.DOCUMENT_POSITION_FOLLOWING)`,
    );
    expect(copyFirst).toBe(true);

    // Nothing runs off a phone's width.
    expect(
      await page.evaluate<number>('document.scrollingElement.scrollWidth'),
    ).toBeLessThanOrEqual(390);
    await page.screenshot({
      path: path.join(ARTIFACTS, 'pix-page.png'),
      fullPage: true,
      animations: 'disabled',
    });
    expect(await problems()).toEqual([]);
    await context.close();
  });

  it("on a phone: the QR code is exactly the charge's pixCopiaECola, as is the code shown", async () => {
    const { url, code } = await openCheckout(1002);
    const context = await newContext(PHONE);
    const { page, problems } = await visit(context, url);
    expect(await qrText(page)).toBe(code);
    expect(await page.getByTestId('pix-code').inputValue()).toBe(code);
    expect(await problems()).toEqual([]);
    await context.close();
  });

  it('on a phone: the button copies the code to the clipboard, and says so', async () => {
    const { url, code } = await openCheckout(1003);
    const context = await newContext(PHONE);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(url).origin,
    });
    const { page, problems } = await visit(context, url);
    // Something else on the clipboard first: what is read after is the page's doing.
    await page.evaluate(`navigator.clipboard.writeText('nothing copied yet')`);
    await page.getByRole('button', { name: 'Copiar código Pix' }).tap();
    await page.getByRole('button', { name: 'Código copiado ✓' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(code);
    // A screen reader hears it too.
    expect(await page.locator('#pix-copy-said').textContent()).toBe(
      'Código Pix copiado. Cole no app do seu banco.',
    );
    expect(await problems()).toEqual([]);
    await context.close();
  });

  it('on a phone: paid at the PSP with no webhook, the page moves on to "Pagamento confirmado" by itself', async () => {
    const { checkoutId, url, txid } = await openCheckout(1005);
    const context = await newContext(PHONE);
    const { page, problems } = await visit(context, url);
    await page.getByText('Aguardando o pagamento…').waitFor();
    // The customer pays in the bank's app; the PSP's webhook never comes.
    const paid = suite.fake.pix.pay(txid);
    await page.waitForURL(
      `${suite.h.url}/return/pix?checkout_id=${encodeURIComponent(checkoutId)}`,
      { timeout: WAIT_DEADLINE_MS },
    );
    expect(await page.getByTestId('outcome').textContent()).toBe('Pagamento confirmado');
    expect(await page.getByTestId('shop-name').textContent()).toBe(SHOP_NAME);
    // What the page's poll read at the PSP was recorded: the platform gets the finish.
    const finish = await eventually(
      () => suite.accepted('finish-checkout', 1005)[0],
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toEqual({ service_id: 1005, transaction_id: paid.endToEndId });
    expect(await problems()).toEqual([]);
    await context.close();
  });

  it('on a phone: an unknown checkout is the 404 page; an expired one says so, with no code', async () => {
    const context = await newContext(PHONE);
    const unknown = await visit(
      context,
      `${suite.h.url}/pix/chk_${randomBytes(12).toString('hex')}`,
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Pagamento não encontrado',
    );

    const { checkoutId, url } = await openCheckout(1006);
    expect(['expired', 'settled']).toContain(
      await expireCheckout(suite.h.connector.deps, checkoutId),
    );
    const closed = await visit(context, url);
    expect(closed.status).toBe(200);
    expect(await closed.page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Pix indisponível',
    );
    expect(await closed.page.getByText('expirou ou foi cancelado').count()).toBe(1);
    expect(await closed.page.getByTestId('pix-qr').count()).toBe(0);
    expect(await closed.page.getByTestId('pix-code').count()).toBe(0);
    expect(await closed.page.getByTestId('pix-copy').count()).toBe(0);
    expect(await closed.problems()).toEqual([]);
    await context.close();
  });

  it('on a desktop: the QR code is there to scan from a phone, and the page keeps its width', async () => {
    const { url, code } = await openCheckout(1007);
    const context = await newContext(DESKTOP);
    const { page, problems } = await visit(context, url);
    const qr = await page.getByTestId('pix-qr').boundingBox();
    if (!qr) throw new Error('the QR code is not laid out');
    expect(qr.width).toBeGreaterThanOrEqual(200);
    expect(qr.height).toBeCloseTo(qr.width, 0);
    expect(await qrText(page)).toBe(code);
    expect(
      await page.evaluate<number>('document.scrollingElement.scrollWidth'),
    ).toBeLessThanOrEqual(1280);
    expect(await problems()).toEqual([]);
    await context.close();
  });
});
