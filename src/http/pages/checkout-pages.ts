import type { CheckoutRecord } from '../../checkout/checkout-record';
import {
  escapeHtml,
  formatMoney,
  renderPage,
  shopEyebrow,
  wayBack,
  type PageStorefront,
} from '../../html/page-layout';

type PageText = { title: string; text: string; tone: 'ok' | 'bad' | '' };
type Method = NonNullable<CheckoutRecord['method']>;

const RETURN_TEXT: Record<string, PageText> = {
  paid: {
    title: 'Pagamento confirmado',
    text: 'Obrigado! Seu pedido segue para produção.',
    tone: 'ok',
  },
  processing: {
    title: 'Pagamento em processamento',
    text: 'Aguardamos a confirmação do pagamento. Se ainda falta pagar, pague antes do vencimento; a loja é avisada assim que for confirmado.',
    tone: '',
  },
  declined: {
    title: 'Pagamento não concluído',
    text: 'O pagamento foi recusado ou cancelado. Você pode tentar novamente pela loja.',
    tone: 'bad',
  },
  expired: {
    title: 'Link de pagamento expirado',
    text: 'Solicite um novo link de pagamento pela loja.',
    tone: 'bad',
  },
  failed: {
    title: 'Não foi possível concluir',
    text: 'Houve um problema ao preparar o pagamento. A loja foi avisada.',
    tone: 'bad',
  },
};

/** A payment under way, as its method makes it: what the customer waits for, and how long. */
const PROCESSING_BY_METHOD: Record<Method, PageText> = {
  pix: {
    // Processing also means the Pix code was issued and not yet paid (Mercado Pago's and Asaas's
    // pending): the page never tells a customer who has not paid that there is nothing to do.
    title: 'Aguardando o Pix',
    // A Pix paid may also be held for checking (Asaas's precautionary hold, up to 72 hours).
    text: 'Se você ainda não pagou, pague o Pix pelo código antes que ele expire. Depois de pago, a confirmação costuma chegar em minutos; às vezes o banco confere o Pix antes de liberá-lo, o que leva até 3 dias. A loja é avisada assim que for confirmado; não é preciso pagar de novo.',
    tone: '',
  },
  boleto: {
    title: 'Boleto gerado',
    text: 'Pague o boleto até o vencimento. Depois do pagamento, a confirmação chega em até 3 dias úteis, e a loja é avisada assim que for compensado.',
    tone: '',
  },
  card: {
    title: 'Pagamento em análise',
    text: 'O pagamento com cartão está em análise. A loja é avisada assim que for aprovado; não é preciso pagar de novo.',
    tone: '',
  },
};

/** How the customer paid, in their words. */
const PAID_WITH: Record<Method, string> = {
  pix: 'Pago com Pix',
  boleto: 'Pago com boleto',
  card: 'Pago com cartão',
};

const WAITING = {
  title: 'Aguardando pagamento',
  text: 'Ainda não recebemos a confirmação do pagamento.',
  tone: '' as const,
};
const LEFT = {
  title: 'Pagamento não concluído',
  text: 'O pagamento não foi feito, mas o link de pagamento continua válido: volte a ele pela loja para tentar de novo, com outro cartão ou por Pix.',
  tone: '' as const,
};

/**
 * Where the provider sends the customer back: a plain page saying what happened and what to do
 * next, naming the shop and leading back to it. `cancelled`: the customer left the provider's
 * page without paying (its cancel link).
 */
export function returnPage(
  record: CheckoutRecord,
  options: { notice?: string; cancelled?: boolean; storefront?: PageStorefront } = {},
): string {
  // Reported says only that the platform heard the outcome: the outcome says what it was, and
  // without one the page claims nothing.
  const key = record.state === 'reported' ? record.outcome : record.state;
  const stillOpen = record.state === 'requested' || record.state === 'url_sent';
  const byMethod = key === 'processing' && record.method && PROCESSING_BY_METHOD[record.method];
  const text =
    byMethod || (key && RETURN_TEXT[key]) || (options.cancelled && stillOpen ? LEFT : WAITING);
  const paidWith =
    key === 'paid' && record.method ? `<p class="note">${PAID_WITH[record.method]}</p>` : '';
  const amount = record.amount
    ? `<p>Valor: <strong>${formatMoney(record.amount.amountMinor, record.amount.currency)}</strong></p>`
    : '';
  return renderPage(
    text.title,
    `<div class="card">
  ${shopEyebrow(options.storefront, `Pedido nº ${record.serviceId}`)}
  <h1 class="${text.tone}" data-testid="outcome">${escapeHtml(text.title)}</h1>
  <p class="status">${escapeHtml(text.text)}</p>
  ${amount}
  ${paidWith}
  ${wayBack(options.storefront)}
</div>`,
    options.notice,
  );
}
