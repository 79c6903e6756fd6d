import { runInNewContext } from 'node:vm';
import * as QRCode from 'qrcode';
import {
  PIX_PAGE_SCRIPT,
  PIX_SCRIPT_PATH,
  pixPaymentPage,
  pixStatusPath,
  type PixPageView,
} from '../../../src/payments/pix/pix-page';

// A dynamic Pix code as a PSP issues it (the location of the charge, no amount in it).
const CODE =
  '00020101021226830014br.gov.bcb.pix2561qrpix.example.com.br/qr/v2/cobv/9d36b84f-c70b-478f-b95c-12729b90ca255204000053039865802BR5913MOVEIS DO LAR6009SAO PAULO62070503***63041D3D';

const view = (fields: Partial<PixPageView> = {}): PixPageView => ({
  checkoutId: 'chk_0123456789abcdef01234567',
  serviceId: 1004,
  amount: { amountMinor: 2_000_000, currency: 'BRL' },
  expiresAt: '2026-11-20T13:30:00.000Z',
  pixCopiaECola: CODE,
  state: 'open',
  returnUrl: 'https://connector.example/checkout/chk_0123456789abcdef01234567/return',
  storefront: { name: 'Móveis do Lar', siteUrl: 'https://moveisdolar.example' },
  ...fields,
});

const unescape = (text: string) =>
  text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

describe('the Pix page, open', () => {
  it('shows the shop, the order, the amount in reais, the code, the QR code and the deadline', async () => {
    const html = await pixPaymentPage(view());
    expect(html).toContain('<span class="shop" data-testid="shop-name">Móveis do Lar</span>');
    expect(html).toContain('Pague com Pix');
    expect(html).toContain('Pedido nº 1004');
    expect(html).toMatch(/data-testid="total">R\$\s20\.000,00</);
    expect(html).toMatch(
      /<textarea[^>]*data-testid="pix-code"[^>]*readonly[^>]*>([^<]*)<\/textarea>/,
    );
    expect(html).toContain(`>${CODE}</textarea>`);
    expect(html).toContain('Válido até 20/11/2026, 10:30 (horário de Brasília).');
    expect(html).toMatch(/role="status"[^>]*>Aguardando o pagamento…</);
    expect(html).toContain('<noscript>');
    expect(html).toMatch(/<label[^>]*for="pix-code"/);
  });

  it('puts "copy the code" first, right under the amount, and the QR code after the code', async () => {
    const html = await pixPaymentPage(view());
    const at = (needle: string) => html.indexOf(needle);
    expect(html).toMatch(
      /data-testid="total">[^<]*<\/p>\s*<button class="pay pix-copy"[^>]*>Copiar código Pix</,
    );
    expect(at('data-testid="pix-copy"')).toBeLessThan(at('data-testid="pix-code"'));
    expect(at('data-testid="pix-code"')).toBeLessThan(at('data-testid="pix-qr"'));
  });

  it('draws the QR code of the exact code as an inline, named SVG', async () => {
    const html = await pixPaymentPage(view());
    const svg = /<svg [^>]*data-testid="pix-qr"[^>]*>([\s\S]*?)<\/svg>/.exec(html);
    expect(svg?.[0]).toMatch(/role="img"/);
    expect(svg?.[0]).toMatch(/aria-label="QR Code Pix de R\$\s20\.000,00 do pedido nº 1004"/);
    const expected = await QRCode.toString(CODE, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
    });
    expect(svg?.[1]).toBe(/<svg[^>]*>([\s\S]*?)<\/svg>/.exec(expected)?.[1]);
  });

  it('loads its script from the connector, with no inline script or handler (the CSP)', async () => {
    const html = await pixPaymentPage(view());
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]?.[1]).toContain(`src="${PIX_SCRIPT_PATH}"`);
    expect(scripts[0]?.[2]).toBe('');
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).toContain(`data-status-url="${pixStatusPath(view().checkoutId)}"`);
  });

  it('escapes HTML in the shop name, the code, the ids and the return URL', async () => {
    const html = await pixPaymentPage(
      view({
        checkoutId: 'chk_"><b>',
        storefront: { name: 'Móveis <Bom> & "Lar"' },
        pixCopiaECola: `${CODE}</textarea><script>alert('x')</script>`,
        returnUrl: 'https://connector.example/return?a=1&b="2"',
      }),
    );
    expect(html).toContain('Móveis &#60;Bom&#62; &#38; &#34;Lar&#34;');
    expect(html).toContain(`${CODE}&#60;/textarea&#62;&#60;script&#62;alert(&#39;x&#39;)`);
    expect(html).not.toContain('<Bom>');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<b>');
    expect(html).toContain(
      'data-return-url="https://connector.example/return?a=1&#38;b=&#34;2&#34;"',
    );
    expect(html).toContain('data-status-url="/pix/chk_%22%3E%3Cb%3E/status"');
  });

  it('shows the notice above the content', async () => {
    const html = await pixPaymentPage(view({ notice: 'Ambiente de homologação' }));
    expect(html).toContain('<p class="notice" role="note">Ambiente de homologação</p>');
  });
});

describe('the Pix page, paid or closed', () => {
  it('says the payment was received and leads on, with no code to pay', async () => {
    const html = await pixPaymentPage(view({ state: 'paid' }));
    expect(html).toContain('Pagamento recebido');
    expect(html).toContain(
      `<a class="back" data-testid="pix-continue" href="${view().returnUrl}">`,
    );
    expect(html).not.toContain('<svg');
    expect(html).not.toContain(CODE);
    expect(html).not.toContain('<script');
  });

  it('says the code expired or was cancelled, with no code and the way back to the shop', async () => {
    const html = await pixPaymentPage(view({ state: 'closed' }));
    expect(html).toContain('Este código Pix expirou ou foi cancelado.');
    expect(html).toContain('href="https://moveisdolar.example"');
    expect(html).not.toContain('<svg');
    expect(html).not.toContain(CODE);
    expect(html).not.toContain('Copiar código Pix');
    expect(html).not.toContain('<script');
  });
});

/** An element of the page as the script uses it, with the attributes and text the HTML gives. */
class PageElement {
  textContent: string;
  value: string;
  selected = false;
  readonly classes = new Set<string>();
  readonly listeners = new Map<string, () => void>();
  readonly classList = {
    add: (name: string) => this.classes.add(name),
    remove: (name: string) => this.classes.delete(name),
    toggle: (name: string, on: boolean) =>
      on ? this.classes.add(name) : this.classes.delete(name),
  };
  constructor(
    private readonly attributes: Record<string, string>,
    content: string,
  ) {
    this.textContent = content;
    this.value = content;
  }
  getAttribute(name: string): string | null {
    return this.attributes[name] ?? null;
  }
  addEventListener(type: string, listener: () => void): void {
    this.listeners.set(type, listener);
  }
  focus(): void {}
  select(): void {
    this.selected = true;
  }
  setSelectionRange(): void {
    this.selected = true;
  }
}

function elementOf(html: string, id: string): PageElement {
  const tag = new RegExp(`<(\\w+)([^>]*\\sid="${id}"[^>]*)>([^<]*)`).exec(html);
  if (!tag) throw new Error(`the page has no #${id}`);
  const attributes = Object.fromEntries(
    [...(tag[2] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map(([, k, v]) => [k, unescape(v ?? '')]),
  );
  return new PageElement(attributes, unescape(tag[3] ?? ''));
}

type Answer = { state: string; next?: string } | 'error' | 503;

/** Runs the page's script on the page's elements, with a clock of its own and answers in turn. */
async function runScript(
  answers: Answer[],
  browser: { clipboard?: boolean; copies?: boolean } = {},
) {
  const html = await pixPaymentPage(view());
  const ids = ['pix', 'pix-code', 'pix-copy', 'pix-copy-said', 'pix-status'];
  const elements = new Map(ids.map((id) => [id, elementOf(html, id)]));
  let now = 0;
  let lastId = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  const asked: { at: number; url: string; init: { cache?: string } }[] = [];
  const documentListeners = new Map<string, () => void>();
  const document = {
    visibilityState: 'visible',
    getElementById: (id: string) => elements.get(id) ?? null,
    addEventListener: (type: string, listener: () => void) => documentListeners.set(type, listener),
    execCommand: jest.fn(() => browser.copies ?? true),
  };
  const writeText = jest.fn(() => Promise.resolve());
  const location = {
    href: 'https://connector.example/pix/chk',
    replace: jest.fn(),
    reload: jest.fn(),
  };
  const context: Record<string, unknown> = {
    document,
    location,
    navigator: browser.clipboard === false ? {} : { clipboard: { writeText } },
    isSecureContext: true,
    URL,
    AbortController,
    setTimeout: (run: () => void, ms: number) => {
      timers.set(++lastId, { at: now + ms, run });
      return lastId;
    },
    clearTimeout: (id: number) => timers.delete(id),
    fetch: (url: string, init: { cache?: string }) => {
      asked.push({ at: now, url, init });
      const answer = answers.shift() ?? { state: 'open' };
      if (answer === 'error') return Promise.reject(new TypeError('Failed to fetch'));
      if (answer === 503) return Promise.resolve({ ok: false, status: 503 });
      return Promise.resolve({ ok: true, status: 200, json: () => Promise.resolve(answer) });
    },
  };
  context.window = context;
  runInNewContext(PIX_PAGE_SCRIPT, context);
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const element = (id: string) => elements.get(id) as PageElement;
  return {
    asked,
    location,
    writeText,
    document,
    element,
    /** Lets `ms` pass, running the timers due, in order. */
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        await settle();
        const due = [...timers].sort(([, a], [, b]) => a.at - b.at)[0];
        if (!due || due[1].at > until) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].run();
      }
      now = until;
    },
    async show(visibility: 'visible' | 'hidden') {
      document.visibilityState = visibility;
      documentListeners.get('visibilitychange')?.();
      await settle();
    },
    async click(id: string) {
      element(id).listeners.get('click')?.();
      await settle();
    },
  };
}

describe("the Pix page's script", () => {
  it('asks every 3 s, without cache, and goes on by itself once paid', async () => {
    const next = 'https://connector.example/checkout/chk/return?paid=1';
    const page = await runScript([{ state: 'open' }, { state: 'open' }, { state: 'paid', next }]);
    await page.advance(9_000);
    expect(page.asked.map((ask) => ask.at)).toEqual([3_000, 6_000, 9_000]);
    expect(page.asked[0]?.url).toBe(pixStatusPath(view().checkoutId));
    expect(page.asked[0]?.init.cache).toBe('no-store');
    expect(page.element('pix-status').textContent).toBe('Pagamento recebido! Redirecionando…');
    expect(page.location.replace).toHaveBeenCalledWith(next);
    await page.advance(60_000);
    expect(page.asked).toHaveLength(3);
  });

  it('reloads the page when the checkout closed (the server then says so)', async () => {
    const page = await runScript([{ state: 'closed' }]);
    await page.advance(60_000);
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    expect(page.asked).toHaveLength(1);
  });

  it('goes to the return URL when told to go anywhere but http(s)', async () => {
    const page = await runScript([{ state: 'paid', next: 'javascript:alert(1)' }]);
    await page.advance(3_000);
    expect(page.location.replace).toHaveBeenCalledWith(view().returnUrl);
  });

  it('asks less often after errors, says so, and comes back to 3 s', async () => {
    const page = await runScript(['error', 503, 'error', 'error', { state: 'open' }]);
    await page.advance(45_000);
    expect(page.asked.map((ask) => ask.at)).toEqual([3_000, 9_000, 21_000, 45_000]);
    expect(page.element('pix-status').textContent).toBe(
      'Sem conexão no momento. Tentando de novo…',
    );
    await page.advance(36_000);
    expect(page.asked.map((ask) => ask.at).slice(4)).toEqual([75_000, 78_000, 81_000]);
    expect(page.element('pix-status').textContent).toBe('Aguardando o pagamento…');
  });

  it('stops asking while the page is hidden and asks at once when it is back', async () => {
    const page = await runScript([]);
    await page.show('hidden');
    await page.advance(60_000);
    expect(page.asked).toHaveLength(0);
    await page.show('visible');
    expect(page.asked.map((ask) => ask.at)).toEqual([60_000]);
    await page.advance(3_000);
    expect(page.asked.map((ask) => ask.at)).toEqual([60_000, 63_000]);
  });

  it('copies the code to the clipboard and says so for a few seconds', async () => {
    const page = await runScript([]);
    await page.click('pix-copy');
    expect(page.writeText).toHaveBeenCalledWith(CODE);
    expect(page.element('pix-copy').textContent).toBe('Código copiado ✓');
    await page.advance(4_000);
    expect(page.element('pix-copy').textContent).toBe('Copiar código Pix');
  });

  it('copies by selecting the code where there is no clipboard API', async () => {
    const page = await runScript([], { clipboard: false });
    await page.click('pix-copy');
    expect(page.document.execCommand).toHaveBeenCalledWith('copy');
    expect(page.element('pix-code').selected).toBe(true);
    expect(page.element('pix-copy').textContent).toBe('Código copiado ✓');
  });

  it('leaves the code selected and says to copy it when the browser copies nothing', async () => {
    const page = await runScript([], { clipboard: false, copies: false });
    await page.click('pix-copy');
    expect(page.element('pix-code').selected).toBe(true);
    expect(page.element('pix-copy').textContent).toBe('Selecione e copie o código abaixo');
  });
});
