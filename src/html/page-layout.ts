/*
 * The HTML kit of every page a customer's browser sees (the connector's return pages, the
 * sandbox provider's payment page): one plain, shop-like style, escaping, money in pt-BR.
 */

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Centavos as a person in Brazil reads them, "R$ 1.234,56" (the pages and the CLI alike). */
export function formatMoney(amountMinor: number, currency: string): string {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency }).format(amountMinor / 100);
}

/** A moment in Brasília time (a page says so beside it: a reader abroad reads it right). */
export function brasiliaTime(iso: string): string {
  return new Intl.DateTimeFormat('pt-BR', {
    dateStyle: 'short',
    timeStyle: 'short',
    timeZone: 'America/Sao_Paulo',
  }).format(new Date(iso));
}

const STYLE = `
  :root { --ink:#1f2933; --muted:#616e7c; --line:#e4e7eb; --brand:#0b7a53; --bg:#f5f7fa; --bad:#b42318; }
  * { box-sizing: border-box; }
  body { margin:0; font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); background:var(--bg); }
  main { max-width:560px; margin:0 auto; padding:32px 16px 48px; }
  .card { background:#fff; border:1px solid var(--line); border-radius:12px; padding:28px; box-shadow:0 1px 3px rgba(0,0,0,.06); }
  .eyebrow { display:flex; flex-wrap:wrap; align-items:center; gap:4px 8px; font-size:13px; letter-spacing:.06em; text-transform:uppercase; color:var(--muted); margin:0 0 4px; }
  h1 { font-size:24px; margin:0 0 20px; }
  .badge { display:inline-block; font-size:12px; font-weight:600; padding:2px 8px; border-radius:999px; background:#fff4e5; color:#8a4b00; }
  table { width:100%; border-collapse:collapse; margin:0 0 16px; }
  td { padding:8px 0; border-bottom:1px solid var(--line); vertical-align:top; }
  td.nowrap { white-space:nowrap; }
  td.end { text-align:right; padding-left:16px; }
  td.amount { text-align:right; white-space:nowrap; padding-left:16px; font-variant-numeric:tabular-nums; }
  tr.total td { border-bottom:none; font-weight:700; font-size:20px; padding-top:14px; }
  .actions { display:flex; gap:12px; flex-wrap:wrap; margin-top:8px; }
  .actions form { flex:1 1 200px; margin:0; }
  button { width:100%; font:inherit; font-weight:600; padding:14px 18px; border-radius:8px; cursor:pointer; border:1px solid transparent; }
  button.pay { background:var(--brand); color:#fff; }
  button.pay:hover { background:#08603f; }
  button.decline { background:#fff; color:var(--bad); border-color:#f3c5c1; }
  button.pix { background:#fff; color:var(--brand); border-color:#b9dccb; }
  .note { color:var(--muted); font-size:14px; margin:18px 0 0; }
  .status { font-size:18px; margin:0 0 8px; }
  .ok { color:var(--brand); } .bad { color:var(--bad); }
  .shop { font-weight:600; letter-spacing:normal; text-transform:none; color:var(--ink); font-size:15px; }
  .back { display:inline-block; margin-top:16px; font-weight:600; color:var(--brand); text-decoration:none; padding:12px 0; }
  .back:hover { text-decoration:underline; }
  .form { display:flex; flex-direction:column; gap:12px; margin:16px 0 0; }
  .field { display:flex; flex-direction:column; gap:4px; font-size:14px; color:var(--muted); }
  .field input, .field select { font:inherit; font-size:16px; color:var(--ink); padding:10px 12px; border:1px solid var(--line); border-radius:8px; width:100%; }
  .field select { background:#fff; }
  .field [aria-invalid="true"] { border-color:var(--bad); }
  .field small.bad { color:var(--bad); }
  .notice { background:#fff4e5; color:#8a4b00; border:1px solid #f5d9b0; border-radius:8px; padding:10px 14px; margin:0 0 16px; font-size:14px; }
  .sr-only { position:absolute; width:1px; height:1px; padding:0; margin:-1px; overflow:hidden; clip:rect(0,0,0,0); white-space:nowrap; border:0; }
  h1.pix-title { margin-bottom:4px; }
  .pix-order { margin:0; color:var(--muted); }
  .pix-amount { font-size:34px; line-height:1.2; font-weight:700; margin:4px 0 16px; font-variant-numeric:tabular-nums; }
  button.pix-copy { font-size:18px; min-height:56px; }
  button.pix-copy.done { background:#08603f; }
  button.pix-copy:focus-visible, .pix-code:focus-visible { outline:3px solid #7cc4a4; outline-offset:2px; }
  .pix-code-label { display:block; margin:16px 0 4px; font-size:14px; color:var(--muted); }
  .pix-code { display:block; width:100%; margin:0; padding:10px 12px; font:16px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace; color:var(--ink); background:var(--bg); border:1px solid var(--line); border-radius:8px; word-break:break-all; overflow-wrap:anywhere; resize:vertical; }
  .pix-steps { margin:16px 0 0; padding-left:22px; }
  .pix-steps li { margin:2px 0; }
  .pix-status { display:flex; align-items:center; gap:10px; margin:16px 0 0; padding:10px 14px; border-radius:8px; background:#f0f4f8; font-weight:600; }
  .pix-status::before { content:""; flex:none; width:10px; height:10px; border-radius:50%; background:#de911d; animation:pix-pulse 1.6s ease-in-out infinite; }
  .pix-status.ok { background:#e3f5ec; color:var(--brand); }
  .pix-status.ok::before { background:var(--brand); animation:none; }
  @keyframes pix-pulse { 50% { opacity:.3; } }
  .pix-qr { margin:24px 0 0; padding-top:20px; border-top:1px solid var(--line); text-align:center; }
  .pix-qr-title { margin:0 0 8px; font-size:15px; color:var(--muted); }
  .pix-qr-code { display:block; width:100%; max-width:240px; height:auto; aspect-ratio:1; margin:0 auto; }
  @media (scripting: none) { button.pix-copy, .pix-status { display:none; } }
  @media (prefers-reduced-motion: reduce) { .pix-status::before { animation:none; } }
  @media (max-width:420px) { .card.pix { padding:20px 16px; } }
  .part { border-top:1px solid var(--line); margin-top:8px; padding-top:12px; }
  .part h2 { font-size:18px; margin:0; }
  .part table { margin:0 0 8px; }
  .part td { border-bottom:none; }
  .part .state { font-size:14px; color:var(--muted); }
  .part .state.ok { color:var(--brand); } .part .state.bad { color:var(--bad); }
  .part .actions form { flex:1 1 100%; }
  details.split { margin:12px 0 0; }
  details.split summary { cursor:pointer; font-weight:600; color:var(--brand); padding:10px 0; }
  @media (max-width:420px) { .card.plan { padding:20px 16px; } }
`;

/**
 * A complete page; `notice` is a banner above the content (the sandbox takes no money, say);
 * `refresh` loads `url` again after `seconds`, without script (a payment awaited).
 */
export function renderPage(
  title: string,
  body: string,
  notice?: string,
  options: { refresh?: { seconds: number; url: string } } = {},
): string {
  const { refresh: again } = options;
  const refresh = again
    ? `\n<meta http-equiv="refresh" content="${Math.floor(again.seconds)};url=${escapeHtml(again.url)}">`
    : '';
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>${notice ? `<p class="notice" role="note">${escapeHtml(notice)}</p>` : ''}${body}</main></body>
</html>`;
}

/** The shop as a customer's page shows it (shop-registry/shop-settings.ts `Storefront`). */
export interface PageStorefront {
  name?: string;
  siteUrl?: string;
}

/** The line above a page's title: the shop's name when it has one, then what the page is about. */
export function shopEyebrow(
  storefront: PageStorefront | undefined,
  about: string,
  /** Markup after it (already escaped), such as a badge. */
  after = '',
): string {
  const shop = storefront?.name
    ? `<span class="shop" data-testid="shop-name">${escapeHtml(storefront.name)}</span>`
    : '';
  return `<p class="eyebrow">${shop}<span>${escapeHtml(about)}</span>${after}</p>`;
}

/** A link back to the shop's site; none without one (the page's text says to go back to the shop). */
export function wayBack(storefront: PageStorefront | undefined): string {
  if (!storefront?.siteUrl) return '';
  const to = storefront.name ? `Voltar à loja ${storefront.name}` : 'Voltar à loja';
  return `<a class="back" data-testid="way-back" href="${escapeHtml(storefront.siteUrl)}">${escapeHtml(to)}</a>`;
}

/** A page that only says something went wrong: its heading (the title, unless told) and a line. */
export function messagePage(
  title: string,
  text: string,
  notice?: string,
  heading: string = title,
): string {
  return renderPage(
    title,
    `<div class="card"><h1 class="bad">${escapeHtml(heading)}</h1><p class="status">${escapeHtml(text)}</p></div>`,
    notice,
  );
}

/** A page for a link that leads nowhere (unknown or removed checkout). */
export function notFoundPage(notice?: string): string {
  return messagePage(
    'Pagamento não encontrado',
    'Este link não é válido. Solicite um novo link de pagamento pela loja.',
    notice,
  );
}
