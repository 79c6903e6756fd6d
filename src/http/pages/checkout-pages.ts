import type { CheckoutRecord } from '../../checkout/checkout-record';
import type { SandboxPayment } from '../../payments/sandbox/sandbox-provider';
import { escapeHtml, formatMoney, renderPage } from './page-layout';

/**
 * The sandbox provider's payment page: what is paid, the total, and Pay, Pix (processing until
 * confirmed, like a real asynchronous method) and Decline; a Pix under way can be confirmed or
 * declined.
 */
export function sandboxPaymentPage(payment: SandboxPayment): string {
  const total = formatMoney(payment.amount.amountMinor, payment.amount.currency);
  const rows = payment.lines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.label)}</td><td class="amount">${formatMoney(line.amountMinor, payment.amount.currency)}</td></tr>`,
    )
    .join('');
  const base = `/sandbox/checkout/${encodeURIComponent(payment.checkoutId)}`;
  const pending = payment.state === 'pending';
  return renderPage(
    `Pagamento do pedido ${payment.serviceId}`,
    `<div class="card">
  <p class="eyebrow">Pagamento seguro<span class="badge">Sandbox</span></p>
  <h1>Pedido nº ${payment.serviceId}</h1>
  <table aria-label="Itens do pedido">${rows}
    <tr class="total"><td>Total</td><td class="amount" data-testid="total">${total}</td></tr>
  </table>
  ${
    pending || payment.state === 'processing'
      ? `${pending ? '' : '<p class="status">Pix em processamento: aguardando a confirmação do banco.</p>'}
  <div class="actions">
    <form method="post" action="${base}/pay"><button class="pay" type="submit">${pending ? `Pagar ${total}` : 'Confirmar o Pix'}</button></form>
    ${pending ? `<form method="post" action="${base}/pix"><button class="pix" type="submit" title="O pagamento fica em processamento até ser confirmado">Pagar com Pix</button></form>` : ''}
    <form method="post" action="${base}/decline"><button class="decline" type="submit">Recusar pagamento</button></form>
  </div>`
      : `<p class="status">${escapeHtml(SANDBOX_CLOSED[payment.state] ?? 'Este pagamento não está mais disponível.')}</p>`
  }
  <p class="note">Ambiente de teste: nenhum valor é cobrado. Válido até ${escapeHtml(formatDate(payment.expiresAt))}.</p>
</div>`,
  );
}

const SANDBOX_CLOSED: Record<string, string> = {
  paid: 'Este pedido já foi pago.',
  failed: 'Este pagamento foi recusado.',
  expired: 'Este link de pagamento expirou.',
  canceled: 'Este pagamento foi cancelado.',
};

function formatDate(iso: string): string {
  return new Intl.DateTimeFormat('pt-BR', {
    dateStyle: 'short',
    timeStyle: 'short',
    timeZone: 'America/Sao_Paulo',
  }).format(new Date(iso));
}

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
export function returnPage(record: CheckoutRecord): string {
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
  );
}

/** A page for a link that leads nowhere (unknown or removed checkout). */
export function notFoundPage(): string {
  return renderPage(
    'Pagamento não encontrado',
    `<div class="card"><h1 class="bad">Pagamento não encontrado</h1><p class="status">Este link não é válido. Solicite um novo link de pagamento pela loja.</p></div>`,
  );
}
