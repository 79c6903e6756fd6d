import type * as QRCode from 'qrcode';
import {
  brasiliaTime,
  escapeHtml,
  formatMoney,
  renderPage,
  shopEyebrow,
  wayBack,
  type PageStorefront,
} from '../../html/page-layout';
import type { Money } from '../money';

/** What the connector's own Pix page shows (one checkout paid by Pix on the shop's account). */
export interface PixPageView {
  checkoutId: string;
  serviceId: number;
  amount: Money;
  /** ISO; shown in Brasília time. */
  expiresAt: string;
  /** The EMV "copia e cola" code. */
  pixCopiaECola: string;
  state: 'open' | 'paid' | 'closed';
  /** Where the page goes by itself once paid. */
  returnUrl: string;
  storefront?: PageStorefront;
  /** A banner above the content (renderPage's notice). */
  notice?: string;
}

/** Where the connector serves PIX_PAGE_SCRIPT: the CSP allows scripts of its own origin only. */
export const PIX_SCRIPT_PATH = '/pix/assets/pix.js';

/** Where the page's script asks whether the checkout is paid: {"state", "next"?}. */
export function pixStatusPath(checkoutId: string): string {
  return `/pix/${encodeURIComponent(checkoutId)}/status`;
}

/**
 * The Pix page. The customer usually pays in the bank's app on the same phone, so copying the
 * code comes first, right under the amount; the QR code is for paying from another device.
 */
export async function pixPaymentPage(view: PixPageView): Promise<string> {
  const total = formatMoney(view.amount.amountMinor, view.amount.currency);
  const order = `Pedido nº ${view.serviceId}`;
  const body =
    view.state === 'open'
      ? await openBody(view, total)
      : view.state === 'paid'
        ? `<h1 class="ok">Pagamento recebido</h1>
  <p class="status">Recebemos o seu Pix de ${total} referente ao pedido nº ${view.serviceId}. Obrigado!</p>
  <a class="back" data-testid="pix-continue" href="${escapeHtml(view.returnUrl)}">Voltar à loja</a>`
        : `<h1 class="bad">Pix indisponível</h1>
  <p class="status">Este código Pix expirou ou foi cancelado.</p>
  <p class="note">Se ainda quiser pagar o pedido nº ${view.serviceId}, volte à loja e gere um novo pagamento.</p>
  ${wayBack(view.storefront)}`;
  return renderPage(
    `Pague com Pix · ${order}`,
    `<div class="card pix" id="pix" data-state="${view.state}" data-status-url="${escapeHtml(pixStatusPath(view.checkoutId))}" data-return-url="${escapeHtml(view.returnUrl)}">
  ${shopEyebrow(view.storefront, 'Pagamento seguro')}
  ${body}
</div>`,
    view.notice,
  );
}

async function openBody(view: PixPageView, total: string): Promise<string> {
  const code = view.pixCopiaECola;
  // At about 30 monospace characters a line on a phone: the whole code shows without scrolling.
  const rows = Math.min(8, Math.max(3, Math.ceil(code.length / 30)));
  return `<h1 class="pix-title">Pague com Pix</h1>
  <p class="pix-order">Pedido nº ${view.serviceId}</p>
  <p class="pix-amount" data-testid="total">${total}</p>
  <button class="pay pix-copy" type="button" id="pix-copy" data-testid="pix-copy">Copiar código Pix</button>
  <span class="sr-only" id="pix-copy-said" aria-live="polite"></span>
  <label class="pix-code-label" for="pix-code">Código Pix Copia e Cola</label>
  <textarea class="pix-code" id="pix-code" data-testid="pix-code" readonly rows="${rows}" spellcheck="false" autocapitalize="off" autocomplete="off">${escapeHtml(code)}</textarea>
  <noscript><p class="note">Para copiar, selecione o código acima (toque e segure, no celular) e copie. Depois de pagar, recarregue esta página para ver a confirmação.</p></noscript>
  <ol class="pix-steps">
    <li>Abra o app do seu banco e entre em <strong>Pix</strong>.</li>
    <li>Escolha <strong>Pix Copia e Cola</strong>.</li>
    <li>Cole o código e confirme o pagamento de ${total}.</li>
  </ol>
  <p class="pix-status" id="pix-status" data-testid="pix-status" role="status" aria-live="polite">Aguardando o pagamento…</p>
  <div class="pix-qr">
    <p class="pix-qr-title">Vai pagar por outro aparelho? Escaneie o QR Code no app do banco.</p>
    ${await qrSvg(code, `QR Code Pix de ${total} do pedido nº ${view.serviceId}`)}
  </div>
  <p class="note">Válido até ${escapeHtml(brasiliaTime(view.expiresAt))} (horário de Brasília).</p>
  <script src="${PIX_SCRIPT_PATH}" defer></script>`;
}

async function qrSvg(code: string, label: string): Promise<string> {
  // Loaded by the first Pix page drawn: a process that draws none is spared qrcode.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const qrcode = require('qrcode') as typeof QRCode;
  const svg = await qrcode.toString(code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return svg
    .trim()
    .replace(
      /^<svg /,
      `<svg class="pix-qr-code" data-testid="pix-qr" role="img" aria-label="${escapeHtml(label)}" focusable="false" `,
    );
}

/**
 * The page's script (no inline script under the CSP): copies the code, and asks every 3 s
 * whether the checkout is paid, more slowly after errors and not at all while the page is
 * hidden (the customer is in the bank's app: the page asks at once on coming back).
 * Non-ASCII characters are escaped, whatever charset the script is served with.
 */
export const PIX_PAGE_SCRIPT = `(function () {
  'use strict';
  var POLL_MS = 3000, MAX_POLL_MS = 30000, FETCH_TIMEOUT_MS = 10000, COPIED_MS = 4000;
  var WAITING = 'Aguardando o pagamento\\u2026';
  var page = document.getElementById('pix');
  var code = document.getElementById('pix-code');
  var copy = document.getElementById('pix-copy');
  var said = document.getElementById('pix-copy-said');
  var status = document.getElementById('pix-status');
  if (!page || !code || !copy || !said || !status) return;
  var copyLabel = copy.textContent, revert = 0;

  function selectCode() {
    code.focus();
    code.select();
    code.setSelectionRange(0, code.value.length);
  }
  function copied(ok) {
    copy.textContent = ok ? 'C\\u00f3digo copiado \\u2713' : 'Selecione e copie o c\\u00f3digo abaixo';
    copy.classList.toggle('done', ok);
    said.textContent = ok
      ? 'C\\u00f3digo Pix copiado. Cole no app do seu banco.'
      : 'N\\u00e3o foi poss\\u00edvel copiar: o c\\u00f3digo est\\u00e1 selecionado, copie-o.';
    clearTimeout(revert);
    revert = setTimeout(function () {
      copy.textContent = copyLabel;
      copy.classList.remove('done');
      said.textContent = '';
    }, COPIED_MS);
  }
  function copyBySelection() {
    selectCode();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    copied(ok);
  }
  copy.addEventListener('click', function () {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(code.value).then(function () { copied(true); }, copyBySelection);
    } else copyBySelection();
  });
  code.addEventListener('focus', function () { code.select(); });

  var statusUrl = page.getAttribute('data-status-url');
  var returnUrl = safeUrl(page.getAttribute('data-return-url'));
  if (page.getAttribute('data-state') !== 'open' || !statusUrl || typeof fetch !== 'function') return;
  var delay = POLL_MS, timer = 0, busy = false, failures = 0, done = false;

  function safeUrl(url) {
    if (typeof url !== 'string' || !url) return '';
    try {
      var u = new URL(url, location.href);
      return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : '';
    } catch (e) { return ''; }
  }
  function say(text) { if (status.textContent !== text) status.textContent = text; }
  function hidden() { return document.visibilityState === 'hidden'; }
  function answer(body) {
    failures = 0;
    delay = POLL_MS;
    var state = body && body.state;
    if (state === 'paid') {
      done = true;
      status.classList.add('ok');
      say('Pagamento recebido! Redirecionando\\u2026');
      var next = safeUrl(body.next) || returnUrl;
      if (next) location.replace(next); else location.reload();
    } else if (state === 'closed') {
      done = true;
      location.reload();
    } else say(WAITING);
  }
  function failed() {
    failures += 1;
    delay = Math.min(delay * 2, MAX_POLL_MS);
    if (failures >= 3) say('Sem conex\\u00e3o no momento. Tentando de novo\\u2026');
  }
  function poll() {
    clearTimeout(timer);
    timer = 0;
    if (done || busy || hidden()) return;
    busy = true;
    var ctl = typeof AbortController === 'function' ? new AbortController() : null;
    var limit = ctl ? setTimeout(function () { ctl.abort(); }, FETCH_TIMEOUT_MS) : 0;
    fetch(statusUrl, {
      cache: 'no-store',
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
      signal: ctl ? ctl.signal : undefined,
    })
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      })
      .then(answer, failed)
      .then(settled, settled);
    function settled() {
      clearTimeout(limit);
      busy = false;
      if (!done && !hidden()) timer = setTimeout(poll, delay);
    }
  }
  document.addEventListener('visibilitychange', function () {
    if (hidden()) { clearTimeout(timer); timer = 0; } else poll();
  });
  timer = setTimeout(poll, POLL_MS);
})();
`;
