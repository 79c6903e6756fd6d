import type { PartName } from '../../checkout/plan-money';
import type { Money } from '../../payments/money';
import type { PaymentMethod } from '../../payments/payment-offer';
import {
  escapeHtml,
  formatMoney,
  renderPage,
  shopEyebrow,
  wayBack,
  type PageStorefront,
} from '../../html/page-layout';

/*
 * The connector's own payment page (CONTRACT "The payment page"), `GET /pay/:checkoutId`: the
 * order, each of its parts with its amount, state and due date, and per part the ways the shop
 * takes it. pt-BR, phone first, nothing loaded from another host, no script: each choice is a
 * form posted to `POST /pay/:checkoutId/start` (`part`, `method`, and for a split its first
 * `amount` in reais). While a Pix is awaited, and no choice is offered, the page reloads itself
 * (a meta refresh, to the page's own URL).
 */

/** Where a part stands, as the customer reads it. */
export type PartState = 'due' | 'processing' | 'paid' | 'expired' | 'refunded';

export interface PlanPartView {
  part: PartName;
  amount: Money;
  state: PartState;
  /** The day it is due, `YYYY-MM-DD` (a balance's). */
  dueDate?: string;
  /** The ways the shop takes it; a card's with its most installments. */
  methods: ReadonlyArray<{ method: PaymentMethod; maxInstallments?: number }>;
  /** It may be paid two ways (split tender): the customer's first amount, the rest another way. */
  splitTender?: boolean;
  /** The way it is being paid, while `processing` (a Pix awaited reloads the page). */
  paying?: PaymentMethod;
  /** Paid so far, of a part split in two whose first payment is made: the rest is paid next. */
  paidSoFar?: Money;
  /** Payable only once the part before it is paid (a balance before its deposit). */
  later?: boolean;
  /** While `processing`: the payment under way at the provider (a Pix's code, a boleto). */
  resumeUrl?: string;
}

export interface PlanPageView {
  checkoutId: string;
  serviceId: number;
  storefront?: PageStorefront;
  order: Money;
  parts: readonly PlanPartView[];
  /** Why the customer's last choice was not taken, in their words, shown above the parts. */
  problem?: string;
}

const PART_TITLES: Readonly<Record<PartName, string>> = {
  full: 'Pagamento do pedido',
  deposit: 'Entrada (sinal)',
  balance: 'Saldo',
  'split-1': '1º pagamento',
  'split-2': '2º pagamento',
};

const STATE_WORDS: Readonly<Record<PartState, { text: string; tone: string }>> = {
  due: { text: 'A pagar', tone: '' },
  processing: { text: 'Aguardando confirmação', tone: '' },
  paid: { text: 'Pago', tone: 'ok' },
  expired: { text: 'Prazo encerrado', tone: 'bad' },
  refunded: { text: 'Valor devolvido', tone: 'bad' },
};

const METHOD_WORDS: Readonly<Record<PaymentMethod, string>> = {
  pix: 'Pix',
  card: 'cartão',
  boleto: 'boleto',
};

/** Seconds between the page's reloads while a Pix is awaited. */
export const AWAIT_REFRESH_SECONDS = 10;

/** `YYYY-MM-DD` as `dd/mm/aaaa`. */
function dayText(day: string): string {
  const [year, month, date] = day.split('-');
  return `${date}/${month}/${year}`;
}

function methodLabel(choice: PlanPartView['methods'][number]): string {
  if (choice.method !== 'card' || !choice.maxInstallments || choice.maxInstallments < 2) {
    return `Pagar com ${METHOD_WORDS[choice.method]}`;
  }
  return `Pagar com cartão (até ${choice.maxInstallments}x)`;
}

/** One way to pay a part: a form of its own, usable without script, its button named with the part. */
function methodForm(
  action: string,
  part: PartName,
  choice: PlanPartView['methods'][number],
  posted: PartName = part,
) {
  return `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="part" value="${posted}"><input type="hidden" name="method" value="${choice.method}"><button class="${choice.method === 'pix' ? 'pix' : 'pay'}" type="submit" aria-describedby="title-${part}" data-testid="pay-${part}-${choice.method}">${escapeHtml(methodLabel(choice))}</button></form>`;
}

/** The split of a part: the first amount and its way; the rest is paid after, another way. */
function splitForm(action: string, view: PlanPartView): string {
  const id = `split-${view.part}`;
  const options = view.methods
    .map(
      (choice) =>
        `<option value="${choice.method}">${escapeHtml(METHOD_WORDS[choice.method])}</option>`,
    )
    .join('');
  return `<details class="split"><summary>Pagar de duas formas</summary><form class="form" method="post" action="${escapeHtml(action)}"><input type="hidden" name="part" value="split-1"><label class="field" for="${id}-amount">Valor do primeiro pagamento (R$)<input id="${id}-amount" name="amount" inputmode="decimal" autocomplete="off" placeholder="0,00" required></label><label class="field" for="${id}-method">Forma do primeiro pagamento<select id="${id}-method" name="method">${options}</select></label><button class="pay" type="submit" data-testid="split-${view.part}">Pagar o primeiro valor</button></form><p class="note">O restante é pago em seguida, da forma que você escolher.</p></details>`;
}

function partSection(action: string, view: PlanPartView): string {
  const state = STATE_WORDS[view.state];
  const due =
    view.dueDate && view.state !== 'paid'
      ? `<p class="note">${view.state === 'expired' ? 'Venceu' : 'Vence'} em ${escapeHtml(dayText(view.dueDate))}</p>`
      : '';
  const { paidSoFar } = view;
  // The rest of a part whose first payment is made: its forms pay the second.
  const posted = paidSoFar ? 'split-2' : view.part;
  const rest = paidSoFar
    ? `<p class="note" data-testid="rest-${view.part}">Pago ${escapeHtml(formatMoney(paidSoFar.amountMinor, paidSoFar.currency))}; falta ${escapeHtml(formatMoney(view.amount.amountMinor - paidSoFar.amountMinor, paidSoFar.currency))}.</p>`
    : '';
  const resume =
    view.state === 'processing' && view.resumeUrl
      ? `<p class="note"><a href="${escapeHtml(view.resumeUrl)}" data-testid="resume-${view.part}">Ver o pagamento em andamento</a></p>`
      : '';
  const choices =
    view.state !== 'due'
      ? resume
      : view.later
        ? `<p class="note">Pague depois da entrada.</p>`
        : view.methods.length === 0
          ? `<p class="note">Fale com a loja para pagar esta parte.</p>`
          : `${rest}<div class="actions">${view.methods.map((choice) => methodForm(action, view.part, choice, posted)).join('')}</div>${view.splitTender && !paidSoFar ? splitForm(action, view) : ''}`;
  return `<section class="part" data-testid="part-${view.part}" aria-labelledby="title-${view.part}"><table><tr><td><h2 id="title-${view.part}">${escapeHtml(PART_TITLES[view.part])}</h2><span class="state ${state.tone}" data-testid="state-${view.part}">${escapeHtml(state.text)}</span></td><td class="amount">${escapeHtml(formatMoney(view.amount.amountMinor, view.amount.currency))}</td></tr></table>${due}${choices}</section>`;
}

/** The page, for the view of a checkout's plan. */
export function planPage(view: PlanPageView): string {
  const action = `/pay/${encodeURIComponent(view.checkoutId)}/start`;
  const paid = view.parts.reduce(
    (sum, part) =>
      sum + (part.state === 'paid' ? part.amount.amountMinor : (part.paidSoFar?.amountMinor ?? 0)),
    0,
  );
  const left = Math.max(0, view.order.amountMinor - paid);
  const awaiting = view.parts.some((part) => part.state === 'processing');
  // A Pix is confirmed in minutes: the page looks again; a boleto takes days, a card's analysis
  // hours, and a form being filled would be wiped (nothing reloads while one is shown).
  const pixAwaited = view.parts.some(
    (part) => part.state === 'processing' && part.paying === 'pix',
  );
  const choosing = view.parts.some(
    (part) => part.state === 'due' && !part.later && part.methods.length > 0,
  );
  const money = (minor: number) => escapeHtml(formatMoney(minor, view.order.currency));
  const summary = `<table><tr><td>Total do pedido</td><td class="amount">${money(view.order.amountMinor)}</td></tr><tr><td>Pago</td><td class="amount" data-testid="paid">${money(paid)}</td></tr><tr class="total"><td>Falta pagar</td><td class="amount" data-testid="left">${money(left)}</td></tr></table>`;
  const problem = view.problem
    ? `<p class="notice" role="alert" data-testid="problem">${escapeHtml(view.problem)}</p>`
    : '';
  const reloads = pixAwaited && !choosing;
  const waiting = awaiting
    ? `<p class="note" data-testid="awaiting">${reloads ? 'Esta página se atualiza sozinha enquanto aguardamos a confirmação do Pix.' : 'Volte a esta página para ver quando o pagamento for confirmado.'}</p>`
    : '';
  const body = `<div class="card plan">${shopEyebrow(view.storefront, `Pedido ${view.serviceId}`)}<h1>Pagamento do pedido</h1>${problem}${summary}${view.parts.map((part) => partSection(action, part)).join('')}${waiting}${wayBack(view.storefront)}</div>`;
  return renderPage(
    'Pagamento do pedido',
    body,
    undefined,
    // Back to the page itself: a page answered to a refused choice (POST /start) reloads the plan.
    reloads
      ? {
          refresh: {
            seconds: AWAIT_REFRESH_SECONDS,
            url: `/pay/${encodeURIComponent(view.checkoutId)}`,
          },
        }
      : {},
  );
}
