import {
  AWAIT_REFRESH_SECONDS,
  planPage,
  type PlanPageView,
} from '../../../src/http/pages/plan-page';
import { DEPOSIT_PLAN } from '../../support/plan-views';

/*
 * The connector's own payment page (CONTRACT "The payment page"), as HTML: each part with its
 * amount, state and due date; a form per way to pay a part still due (usable without script);
 * what is paid and what is left; nothing from another host; a reload while a payment is awaited.
 */

/** Every form of the page: where it posts and its hidden fields. */
function formsOf(html: string): Array<{ action: string; fields: Record<string, string> }> {
  return [...html.matchAll(/<form[^>]*action="([^"]+)"[^>]*>(.*?)<\/form>/gs)].map((form) => ({
    action: form[1] ?? '',
    fields: Object.fromEntries(
      [...(form[2] ?? '').matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map(
        (field) => [field[1], field[2]],
      ),
    ),
  }));
}

describe('the payment page of a plan', () => {
  it('shows the order, each part with its amount and due date, and what is left', () => {
    const html = planPage(DEPOSIT_PLAN);
    expect(html).toContain('lang="pt-BR"');
    expect(html).toContain('Marcenaria Demo');
    expect(html).toContain('Pedido 1004');
    expect(html).toContain('Entrada (sinal)');
    expect(html).toMatch(/Saldo[\s\S]*R\$\s10\.500,00[\s\S]*Vence em 15\/01\/2027/);
    expect(html).toMatch(/data-testid="left">R\$\s15\.000,00/);
    expect(html).toMatch(/data-testid="paid">R\$\s0,00/);
  });

  it('offers each way to pay a part due as a form of its own: its part, its method, one action', () => {
    const forms = formsOf(planPage(DEPOSIT_PLAN));
    const action = `/pay/${DEPOSIT_PLAN.checkoutId}/start`;
    expect(forms).toEqual([
      { action, fields: { part: 'deposit', method: 'pix' } },
      { action, fields: { part: 'deposit', method: 'card' } },
      // Split tender: the first amount is typed, its method chosen.
      { action, fields: { part: 'split-1' } },
      { action, fields: { part: 'balance', method: 'pix' } },
      { action, fields: { part: 'balance', method: 'boleto' } },
    ]);
    const html = planPage(DEPOSIT_PLAN);
    expect(html).toContain('Pagar com cartão (até 12x)');
    expect(html).toMatch(/name="amount" inputmode="decimal"/);
  });

  it('a part paid offers nothing more, and counts as paid; one awaited reloads the page', () => {
    const view: PlanPageView = {
      ...DEPOSIT_PLAN,
      parts: [
        { ...DEPOSIT_PLAN.parts[0]!, state: 'paid' },
        { ...DEPOSIT_PLAN.parts[1]!, state: 'processing', paying: 'pix' },
      ],
    };
    const html = planPage(view);
    expect(formsOf(html)).toEqual([]);
    expect(html).toMatch(/data-testid="state-deposit">Pago/);
    expect(html).toMatch(/data-testid="state-balance">Aguardando confirmação/);
    expect(html).toMatch(/data-testid="paid">R\$\s4\.500,00/);
    expect(html).toMatch(/data-testid="left">R\$\s10\.500,00/);
    expect(html).toContain(
      `<meta http-equiv="refresh" content="${AWAIT_REFRESH_SECONDS};url=/pay/${DEPOSIT_PLAN.checkoutId}">`,
    );
    expect(planPage(DEPOSIT_PLAN)).not.toContain('http-equiv="refresh"');
    // A boleto awaited takes days: no reload; a form on the page is never wiped by one.
    const boleto = planPage({
      ...view,
      parts: [view.parts[0]!, { ...view.parts[1]!, paying: 'boleto' }],
    });
    expect(boleto).not.toContain('http-equiv="refresh"');
    const choosing = planPage({
      ...view,
      parts: [{ ...view.parts[0]!, state: 'due' }, view.parts[1]!],
    });
    expect(choosing).not.toContain('http-equiv="refresh"');
  });

  it("loads nothing from another host and runs no script; the shop's words are escaped", () => {
    const html = planPage({
      ...DEPOSIT_PLAN,
      storefront: { name: '<script>alert(1)</script>' },
      problem: 'O primeiro pagamento deve ser de R$ 1,00 a R$ 4.499,00.',
    });
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&#60;script&#62;');
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(html).toMatch(/role="alert" data-testid="problem">O primeiro pagamento deve ser/);
  });

  it('an expired part says when it fell due; one due with no way to pay says to ask the shop', () => {
    const html = planPage({
      ...DEPOSIT_PLAN,
      parts: [
        { ...DEPOSIT_PLAN.parts[0]!, methods: [] },
        { ...DEPOSIT_PLAN.parts[1]!, state: 'expired' },
      ],
    });
    expect(html).toContain('Fale com a loja para pagar esta parte.');
    expect(html).toContain('Venceu em 15/01/2027');
    expect(formsOf(html)).toEqual([]);
  });
});
