import { escapeHtml, renderPage } from '../html/page-layout';
import type { RecordedPaymentCall } from './simulator-state';

const SAID: Record<RecordedPaymentCall['endpoint'], { text: string; tone: string }> = {
  'checkout-url': { text: 'Aguardando pagamento', tone: '' },
  'finish-checkout': { text: 'Pago: segue para produção', tone: 'ok' },
  'cancel-checkout': { text: 'Pagamento não concluído', tone: 'bad' },
};

/**
 * The shop's own site, as the demo stands it in (`siteUrl` of the demo's shops): where "Voltar
 * à loja" leads, it lists the orders of one platform account with what the platform last heard
 * of each payment (the checkout URL, the finish or the cancel the connector delivered).
 */
export function simulatedShopPage(
  calls: readonly RecordedPaymentCall[],
  account: string,
  shopName: string | undefined,
): string {
  const last = new Map<number, RecordedPaymentCall>();
  for (const call of calls) {
    if (call.account !== account || call.serviceId === undefined || call.status >= 300) continue;
    last.set(call.serviceId, call);
  }
  const rows = [...last.entries()]
    .sort(([a], [b]) => b - a)
    .map(([serviceId, call]) => {
      const said = SAID[call.endpoint];
      return `<tr><td class="nowrap">Pedido nº ${serviceId}</td><td class="end ${said.tone}" data-testid="order-${serviceId}">${escapeHtml(said.text)}</td></tr>`;
    })
    .join('');
  return renderPage(
    shopName ?? 'Loja',
    `<div class="card">
  <p class="eyebrow"><span class="shop">${escapeHtml(shopName ?? 'Loja')}</span><span>Meus pedidos</span></p>
  <h1>Seus pedidos</h1>
  ${rows ? `<table aria-label="Pedidos">${rows}</table>` : '<p class="status">Nenhum pedido com pagamento online ainda.</p>'}
  <p class="note">Esta página faz o papel do site da loja na demonstração: o simulador da plataforma mostra o que recebeu do conector.</p>
</div>`,
  );
}
