import type { CheckoutRecord } from '../../checkout/checkout-record';
import { escapeHtml, formatMoney, renderPage } from '../../html/page-layout';

const RETURN_TEXT: Record<string, { title: string; text: string; tone: 'ok' | 'bad' | '' }> = {
  paid: {
    title: 'Pagamento confirmado',
    text: 'Obrigado! Seu pedido segue para produção.',
    tone: 'ok',
  },
  processing: {
    title: 'Pagamento em processamento',
    text: 'Avisaremos a loja assim que o pagamento for confirmado.',
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
const WAITING = {
  title: 'Aguardando pagamento',
  text: 'Ainda não recebemos a confirmação do pagamento.',
  tone: '' as const,
};

/** Where the provider sends the customer back: a plain page saying what happened. */
export function returnPage(record: CheckoutRecord, notice?: string): string {
  // Reported says only that the platform heard the outcome: the outcome says what it was, and
  // without one the page claims nothing.
  const key = record.state === 'reported' ? record.outcome : record.state;
  const text = (key && RETURN_TEXT[key]) || WAITING;
  const amount = record.amount
    ? `<p>Valor: <strong>${formatMoney(record.amount.amountMinor, record.amount.currency)}</strong></p>`
    : '';
  return renderPage(
    text.title,
    `<div class="card">
  <p class="eyebrow">Pedido nº ${record.serviceId}</p>
  <h1 class="${text.tone}" data-testid="outcome">${escapeHtml(text.title)}</h1>
  <p class="status">${escapeHtml(text.text)}</p>
  ${amount}
</div>`,
    notice,
  );
}
