import {
  brasiliaTime,
  escapeHtml,
  formatMoney,
  renderPage,
  shopEyebrow,
  type PageStorefront,
} from '../../html/page-layout';
import type { SandboxPayment } from './sandbox-provider';

/**
 * The sandbox provider's payment page: what is paid, the total, and Pay (by card), Pix and
 * boleto (processing until confirmed, like a real asynchronous method) and Decline; a Pix or
 * boleto under way can be confirmed or declined.
 */
export function sandboxPaymentPage(
  payment: SandboxPayment,
  notice?: string,
  storefront?: PageStorefront,
): string {
  const total = formatMoney(payment.amount.amountMinor, payment.amount.currency);
  const rows = payment.lines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.label)}</td><td class="amount">${formatMoney(line.amountMinor, payment.amount.currency)}</td></tr>`,
    )
    .join('');
  const base = `/sandbox/checkout/${encodeURIComponent(payment.checkoutId)}`;
  return renderPage(
    `Pagamento do pedido ${payment.serviceId}`,
    `<div class="card">
  ${shopEyebrow(storefront, 'Pagamento seguro', '<span class="badge">Ambiente de teste</span>')}
  <h1>Pedido nº ${payment.serviceId}</h1>
  <table aria-label="Itens do pedido">${rows}
    <tr class="total"><td>Total</td><td class="amount" data-testid="total">${total}</td></tr>
  </table>
  ${
    payment.state === 'pending' || payment.state === 'processing'
      ? payButtons(payment, base, total)
      : `<p class="status">${escapeHtml(SANDBOX_CLOSED[payment.state] ?? 'Este pagamento não está mais disponível.')}</p>
  ${afterActions(base, payment.state)}`
  }
  <p class="note">Ambiente de teste: nenhum valor é cobrado. Válido até ${escapeHtml(brasiliaTime(payment.expiresAt))} (horário de Brasília).</p>
</div>`,
    notice,
  );
}

function payButtons(payment: SandboxPayment, base: string, total: string): string {
  const pending = payment.state === 'pending';
  // Payments made before the shop's options existed offer every method.
  const { methods, maxInstallments } = payment.options ?? {
    methods: ['pix', 'card'],
    maxInstallments: 1,
  };
  const card = methods.includes('card');
  const installments =
    maxInstallments > 1 ? ` <span class="note">em até ${maxInstallments}× no cartão</span>` : '';
  return `${pending ? '' : '<p class="status">Pagamento em processamento: aguardando a confirmação do banco.</p>'}
  <div class="actions">
    ${pending && !card ? '' : `<form method="post" action="${base}/pay"><button class="pay" type="submit">${pending ? `Pagar ${total}` : 'Confirmar o pagamento'}</button>${pending ? installments : ''}</form>`}
    ${pending && methods.includes('pix') ? `<form method="post" action="${base}/pix"><button class="pix" type="submit" title="O pagamento fica em processamento até ser confirmado">Pagar com Pix</button></form>` : ''}
    ${pending && methods.includes('boleto') ? `<form method="post" action="${base}/boleto"><button class="pix" type="submit" title="O boleto fica em processamento até ser compensado">Pagar com boleto</button></form>` : ''}
    <form method="post" action="${base}/decline"><button class="decline" type="submit">Recusar pagamento</button></form>
  </div>`;
}

/**
 * What the simulator can make happen after the outcome, as a provider's dashboard or a bank
 * would: the connector records it as an incident (docs/payment-providers.md, "Incidents after the outcome").
 */
function afterActions(base: string, state: string): string {
  const actions =
    state === 'paid'
      ? [
          ['refund', 'Simular estorno'],
          ['chargeback', 'Simular chargeback'],
        ]
      : ['expired', 'failed', 'canceled'].includes(state)
        ? [['late-pay', 'Simular pagamento após o prazo']]
        : [];
  if (actions.length === 0) return '';
  const forms = actions
    .map(
      ([action, label]) =>
        `<form method="post" action="${base}/${action}"><button class="decline" type="submit">${label}</button></form>`,
    )
    .join('');
  return `<div class="actions" aria-label="Simulador">${forms}</div>`;
}

const SANDBOX_CLOSED: Record<string, string> = {
  paid: 'Este pedido já foi pago.',
  refunded: 'Este pagamento foi estornado.',
  charged_back: 'Este pagamento foi contestado (chargeback).',
  failed: 'Este pagamento foi recusado.',
  expired: 'Este link de pagamento expirou.',
  canceled: 'Este pagamento foi cancelado.',
};
