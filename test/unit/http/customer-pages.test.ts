import type { CheckoutRecord } from '../../../src/checkout/checkout-record';
import { returnPage } from '../../../src/http/pages/checkout-pages';
import { sandboxPaymentPage } from '../../../src/payments/sandbox/sandbox-page';

const record = (fields: Partial<CheckoutRecord>): CheckoutRecord => ({
  checkoutId: 'chk_0123456789abcdef01234567',
  shop: 'default',
  serviceId: 1001,
  state: 'url_sent',
  provider: 'sandbox',
  createdAt: '2026-11-20T12:00:00.000Z',
  updatedAt: '2026-11-20T12:00:00.000Z',
  expiresAt: '2026-11-20T13:00:00.000Z',
  ...fields,
});
const title = (html: string) => /data-testid="outcome">([^<]+)</.exec(html)?.[1];

describe('the return page', () => {
  it('says paid only for a paid outcome, reported or not', () => {
    expect(title(returnPage(record({ state: 'paid', outcome: 'paid' })))).toBe(
      'Pagamento confirmado',
    );
    expect(title(returnPage(record({ state: 'reported', outcome: 'paid' })))).toBe(
      'Pagamento confirmado',
    );
    expect(title(returnPage(record({ state: 'reported', outcome: 'declined' })))).toBe(
      'Pagamento não concluído',
    );
  });

  it('claims nothing for a record that has no outcome', () => {
    for (const state of ['reported', 'url_sent', 'requested'] as const) {
      const html = returnPage(record({ state }));
      expect(title(html)).toBe('Aguardando pagamento');
      expect(html).not.toContain('Pagamento confirmado');
    }
  });

  it('tells a customer who left the provider page that the link still works', () => {
    const html = returnPage(record({ state: 'url_sent' }), { cancelled: true });
    expect(title(html)).toBe('Pagamento não concluído');
    expect(html).toContain('o link de pagamento continua válido');
    // A payment under way is not "left", whatever link brought the customer back.
    expect(title(returnPage(record({ state: 'processing' }), { cancelled: true }))).toBe(
      'Pagamento em processamento',
    );
  });

  it('says what to expect of a payment under way, by its method, and of no other', () => {
    const pix = returnPage(record({ state: 'processing', method: 'pix' }));
    expect(title(pix)).toBe('Aguardando o Pix');
    expect(pix).toMatch(/Pix[^<]*minutos/);
    // A Pix paid may be held for checking (Asaas's precautionary hold, up to 72 hours): the
    // customer who paid is told it may take that long, and not to pay again.
    expect(pix).toMatch(/até 3 dias[^<]*não é preciso pagar de novo/);
    // Processing is also a Pix code issued and not paid yet: never "nothing to do" alone.
    expect(pix).toContain('Se você ainda não pagou, pague o Pix');
    expect(pix).not.toMatch(/boleto/i);
    const boleto = returnPage(record({ state: 'processing', method: 'boleto' }));
    expect(title(boleto)).toBe('Boleto gerado');
    expect(boleto).toContain('3 dias úteis');
    expect(boleto).not.toMatch(/Pix/);
    expect(title(returnPage(record({ state: 'processing', method: 'card' })))).toBe(
      'Pagamento em análise',
    );
    // A provider that did not say how: neither method's promise.
    const unknown = returnPage(record({ state: 'processing' }));
    expect(title(unknown)).toBe('Pagamento em processamento');
    expect(unknown).not.toMatch(/Pix|boleto|minutos|dias úteis/);
  });

  it('says how a paid checkout was paid, when the provider said', () => {
    expect(returnPage(record({ state: 'paid', outcome: 'paid', method: 'pix' }))).toContain(
      'Pago com Pix',
    );
    expect(returnPage(record({ state: 'paid', outcome: 'paid' }))).not.toContain('Pago com');
  });
});

describe("the return page's shop", () => {
  const storefront = {
    name: 'Marcenaria Silva & Filhos',
    siteUrl: 'https://silva.example/loja?a=1&b=2',
  };

  it('names the shop, and leads back to its site on every outcome', () => {
    for (const fields of [
      { state: 'paid', outcome: 'paid' },
      { state: 'reported', outcome: 'declined' },
      { state: 'expired', outcome: 'expired' },
      { state: 'url_sent' },
    ] as const) {
      const html = returnPage(record(fields), { storefront });
      expect(html).toContain('data-testid="shop-name">Marcenaria Silva &#38; Filhos<');
      expect(html).toContain(
        '<a class="back" data-testid="way-back" href="https://silva.example/loja?a=1&#38;b=2">Voltar à loja Marcenaria Silva &#38; Filhos</a>',
      );
    }
  });

  it('names no shop and links nowhere when the shop gives neither', () => {
    const html = returnPage(record({ state: 'paid', outcome: 'paid' }), { storefront: {} });
    expect(html).not.toContain('data-testid="shop-name"');
    expect(html).not.toContain('data-testid="way-back"');
    // The text still says where to go.
    expect(returnPage(record({ state: 'reported', outcome: 'declined' }))).toContain('pela loja');
  });

  it('leads back without a name when the shop has only a site', () => {
    const html = returnPage(record({ state: 'paid', outcome: 'paid' }), {
      storefront: { siteUrl: 'https://silva.example' },
    });
    expect(html).toContain('href="https://silva.example">Voltar à loja</a>');
  });
});

describe('the sandbox payment page', () => {
  it('gives the expiry in Brasília time, and says so', () => {
    const html = sandboxPaymentPage({
      checkoutId: 'chk_0123456789abcdef01234567',
      serviceId: 1001,
      description: 'Pedido 1001',
      amount: { amountMinor: 12345, currency: 'BRL' },
      lines: [{ label: 'Corte', amountMinor: 12345 }],
      state: 'pending',
      // 09:15 UTC is 06:15 in Brasília (UTC-3, no daylight saving since 2019).
      expiresAt: '2026-11-26T09:15:00.000Z',
      returnUrl: 'https://connector.example/return/sandbox',
      cancelUrl: 'https://connector.example/return/sandbox?cancelled=1',
    });
    expect(html).toContain('Válido até 26/11/2026, 06:15 (horário de Brasília).');
    // pt-BR throughout: the badge says what it is in the customer's words.
    expect(html).toContain('<span class="badge">Ambiente de teste</span>');
    expect(html).not.toMatch(/>\s*Sandbox\s*</i);
  });
});
