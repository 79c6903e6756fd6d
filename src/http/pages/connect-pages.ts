import { brasiliaTime, escapeHtml, renderPage, shopEyebrow } from '../../html/page-layout';
import type { LinkPage } from '../../shop-registry/connect-links';

/*
 * The pages a shop's owner sees when connecting the shop's provider account (CONTRACT
 * "Connecting a shop's provider account"): pt-BR, naming the shop and the provider, one button.
 */

const ABOUT = 'Conexão da conta de pagamento';

/** The link's page: what connecting does, and its one button. */
export function connectPage(page: LinkPage, token: string): string {
  const provider = escapeHtml(page.providerLabel);
  return renderPage(
    `Conectar ${page.providerLabel} — ${page.shopName}`,
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1>Conectar a conta do ${provider}</h1>
  <p>Para receber os pagamentos dos pedidos da loja <strong data-testid="connect-shop">${escapeHtml(page.shopName)}</strong>, conecte a conta do ${provider} da loja.</p>
  <p>Você entra no ${provider} com o seu login e autoriza o acesso. Nenhuma senha ou chave é enviada a ninguém, e você pode revogar o acesso no ${provider} quando quiser.</p>
  <form method="post" action="/connect/${encodeURIComponent(token)}/start">
    <div class="actions"><button class="pay" type="submit" data-testid="connect-button">Conectar com ${provider}</button></div>
  </form>
  <p class="note">Este link pode ser usado uma vez e vale até ${escapeHtml(brasiliaTime(page.expiresAt))} (horário de Brasília).</p>
</div>`,
  );
}

/** After the provider confirmed the connection. */
export function connectedPage(page: LinkPage): string {
  const provider = escapeHtml(page.providerLabel);
  return renderPage(
    'Conta conectada',
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1 class="ok" data-testid="connect-result">Conta conectada</h1>
  <p class="status">A conta do ${provider} da loja ${escapeHtml(page.shopName)} está conectada. Os próximos pagamentos já são recebidos nela.</p>
  <p class="note">Você já pode fechar esta página.</p>
</div>`,
  );
}

/** The owner cancelled at the provider: nothing changed, the link still works. */
export function connectCancelledPage(): string {
  return renderPage(
    'Conexão cancelada',
    `<div class="card">
  <p class="eyebrow"><span>${ABOUT}</span></p>
  <h1 data-testid="connect-result">Conexão cancelada</h1>
  <p class="status">Nada foi alterado. Para conectar a conta, abra outra vez o link que você recebeu.</p>
</div>`,
  );
}

/** The provider did not confirm (its answer failed): nothing changed, the link works again. */
export function connectFailedPage(): string {
  return renderPage(
    'Não foi possível conectar',
    `<div class="card">
  <p class="eyebrow"><span>${ABOUT}</span></p>
  <h1 class="bad" data-testid="connect-result">Não foi possível conectar</h1>
  <p class="status">O provedor de pagamento não confirmou a autorização. Nada foi alterado: abra outra vez o link que você recebeu para tentar de novo, em alguns minutos.</p>
</div>`,
  );
}

/** An unknown, used or expired link. */
export function connectLinkNotFoundPage(): string {
  return renderPage(
    'Link inválido',
    `<div class="card">
  <p class="eyebrow"><span>${ABOUT}</span></p>
  <h1 class="bad" data-testid="connect-result">Link inválido</h1>
  <p class="status">Este link de conexão não vale mais: já foi usado, expirou ou não existe. Peça um novo link a quem o enviou.</p>
</div>`,
  );
}
