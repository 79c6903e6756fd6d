import { brasiliaTime, escapeHtml, renderPage, shopEyebrow } from '../../html/page-layout';
import type { LinkPage } from '../../connect/connect-links';

/*
 * The pages a shop's owner sees when connecting the shop's provider account (CONTRACT
 * "Connecting a shop's provider account"): pt-BR, naming the shop and the provider, one button.
 */

const ABOUT = 'Conexão da conta de pagamento';

/** The link's page: what connecting does, and its one button (or its form and its button). */
export function connectPage(page: LinkPage, token: string): string {
  if (page.flow.form) return connectFormPage(page, token);
  const provider = escapeHtml(page.providerLabel);
  return renderPage(
    `Conectar ${page.providerLabel} — ${page.shopName}`,
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1>${escapeHtml(page.flow.title)}</h1>
  <p>Para receber os pagamentos dos pedidos da loja <strong data-testid="connect-shop">${escapeHtml(page.shopName)}</strong>, conecte a conta ${provider} da loja.</p>
  <p>${escapeHtml(page.flow.steps)}</p>
  <form method="post" action="/connect/${encodeURIComponent(token)}/start">
    <div class="actions"><button class="pay" type="submit" data-testid="connect-button">${escapeHtml(page.flow.button)}</button></div>
  </form>
  <p class="note">Este link pode ser usado uma vez e vale até ${escapeHtml(brasiliaTime(page.expiresAt))} (horário de Brasília).</p>
</div>`,
  );
}

/** After the provider confirmed the connection. */
export function connectedPage(page: {
  shopName: string;
  providerLabel: string;
  /** What the owner still does at the provider, where the flow says so. */
  afterConnected: string | undefined;
}): string {
  const provider = escapeHtml(page.providerLabel);
  return renderPage(
    'Conta conectada',
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1 class="ok" data-testid="connect-result">Conta conectada</h1>
  <p class="status">A conta ${provider} da loja ${escapeHtml(page.shopName)} está conectada. Os próximos pagamentos já são recebidos nela.</p>${page.afterConnected ? `\n  <p>${escapeHtml(page.afterConnected)}</p>` : ''}
  <p class="note">Você já pode fechar esta página.</p>
</div>`,
  );
}

const OUTCOMES = {
  /** The owner cancelled at the provider: nothing changed, the link still works. */
  cancelled: {
    title: 'Conexão cancelada',
    text: 'Nada foi alterado. Para conectar a conta, abra outra vez o link que você recebeu.',
  },
  /** The provider did not confirm (its answer failed): nothing changed, the link works again. */
  failed: {
    title: 'Não foi possível conectar',
    tone: 'bad',
    text: 'O provedor de pagamento não confirmou a autorização. Nada foi alterado: abra outra vez o link que você recebeu para tentar de novo, em alguns minutos.',
  },
  /** An unknown, used or expired link. */
  linkNotFound: {
    title: 'Link inválido',
    tone: 'bad',
    text: 'Este link de conexão não vale mais: já foi usado, expirou ou não existe. Peça um novo link a quem o enviou.',
  },
  /** A callback in a browser other than the one that pressed the link's button: nothing changed. */
  otherBrowser: {
    title: 'Abra o link no mesmo navegador',
    tone: 'bad',
    text: 'A conexão foi iniciada em outro navegador. Nada foi alterado: abra o link que você recebeu neste navegador e conecte a conta por ele, do começo ao fim.',
  },
  /** A link's button or form posted from another site's page: refused, nothing changed. */
  elsewhere: {
    title: 'Abra o link que você recebeu',
    tone: 'bad',
    text: 'A conexão só pode ser iniciada pela página do link, com o botão dela. Nada foi alterado: abra o link que você recebeu e conecte a conta por ele.',
  },
  /** The provider refused the data of this link too often in the last hour. */
  tooMany: {
    title: 'Muitas tentativas',
    tone: 'bad',
    text: 'Os dados enviados por este link foram recusados muitas vezes na última hora. Nada foi alterado: confira os dados e tente de novo daqui a uma hora, pelo mesmo link.',
  },
  /** The shop cannot be connected to this provider as it stands: the vendor must change it first. */
  blocked: {
    title: 'A loja precisa de um ajuste',
    tone: 'bad',
    text: 'Antes de conectar esta conta, as formas de pagamento da loja precisam de um ajuste. Nada foi alterado: avise quem enviou o link; depois do ajuste, o mesmo link funciona.',
  },
} satisfies Record<string, { title: string; tone?: 'bad'; text: string }>;

export type ConnectOutcome = keyof typeof OUTCOMES;

export function connectOutcomePage(outcome: ConnectOutcome): string {
  const { title, text } = OUTCOMES[outcome];
  const tone = 'tone' in OUTCOMES[outcome] ? ' class="bad"' : '';
  return renderPage(
    title,
    `<div class="card">
  <p class="eyebrow"><span>${ABOUT}</span></p>
  <h1${tone} data-testid="connect-result">${escapeHtml(title)}</h1>
  <p class="status">${escapeHtml(text)}</p>
</div>`,
  );
}

/**
 * A link whose flow asks the owner's data (a subaccount made from it): its form, one button.
 * Shown again with `problems` (field, what is wrong) and what was typed, when refused.
 */
export function connectFormPage(
  page: LinkPage,
  token: string,
  given: Record<string, unknown> = {},
  problems: ReadonlyArray<Problem> = [],
): string {
  const form = page.flow.form ?? [];
  const fields = form.map((field) => formField(field, given, problems)).join('\n  ');
  const general = problems.filter((p) => !form.some((f) => concerns(p, f.name)));
  return renderPage(
    `${page.flow.title} — ${page.shopName}`,
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1>${escapeHtml(page.flow.title)}</h1>
  <p>Para receber os pagamentos dos pedidos da loja <strong data-testid="connect-shop">${escapeHtml(page.shopName)}</strong>, preencha os dados abaixo.</p>
  <p>${escapeHtml(page.flow.steps)}</p>
  ${general.map((p) => `<p class="status bad" role="alert">${escapeHtml(p.problem)}</p>`).join('')}
  <form method="post" action="/connect/${encodeURIComponent(token)}/${encodeURIComponent(page.provider)}" class="form">
  ${fields}
    <div class="actions"><button class="pay" type="submit" data-testid="connect-button">${escapeHtml(page.flow.button)}</button></div>
  </form>
  <p class="note">Nenhuma senha ou chave é enviada a ninguém. Este link pode ser usado uma vez e vale até ${escapeHtml(brasiliaTime(page.expiresAt))} (horário de Brasília).</p>
</div>`,
  );
}

type FormField = NonNullable<LinkPage['flow']['form']>[number];
type Problem = { field: string; problem: string };

/** Whether a problem is the field's (or a part of it's: `address.zip`). */
function concerns(problem: Problem, name: string): boolean {
  return problem.field === name || problem.field.startsWith(`${name}.`);
}

/** One field of a link's form: its control with what was typed, its hint, what is wrong in it. */
function formField(
  field: FormField,
  given: Record<string, unknown>,
  problems: ReadonlyArray<Problem>,
): string {
  const value = typeof given[field.name] === 'string' ? (given[field.name] as string) : '';
  const wrong = problems.filter((p) => concerns(p, field.name));
  const invalid = wrong.length > 0 ? ' aria-invalid="true"' : '';
  const control = field.options
    ? `<select name="${field.name}"${invalid}>${field.options
        .map(
          ([option, label]) =>
            `<option value="${option}"${option === value ? ' selected' : ''}>${escapeHtml(label)}</option>`,
        )
        .join('')}</select>`
    : `<input name="${field.name}" type="${field.type ?? 'text'}"${field.optional ? '' : ' required'}${field.autocomplete ? ` autocomplete="${field.autocomplete}"` : ''} value="${escapeHtml(value)}"${invalid}>`;
  return `<label class="field"><span>${escapeHtml(field.label)}</span>
    ${control}
    ${field.hint ? `<small>${escapeHtml(field.hint)}</small>` : ''}${wrong.map((p) => `<small class="bad">${escapeHtml(p.problem)}</small>`).join('')}</label>`;
}

/** Back from the provider before it let the account take payments: completed by itself later. */
export function connectPendingPage(
  shopName: string,
  continueUrl: string,
  providerLabel: string,
): string {
  const provider = escapeHtml(providerLabel);
  return renderPage(
    'Quase lá',
    `<div class="card">
  ${shopEyebrow({ name: shopName }, ABOUT)}
  <h1 data-testid="connect-result">Quase lá</h1>
  <p class="status">A conta da loja ${escapeHtml(shopName)} ainda não está liberada para receber pagamentos em ${provider}: faltam dados ou a verificação está em andamento.</p>
  <p>A conexão é concluída sozinha assim que ${provider} liberar a conta. Se ainda faltam dados, continue o cadastro:</p>
  <div class="actions"><a class="back" data-testid="connect-continue" href="${escapeHtml(continueUrl)}">Continuar o cadastro em ${provider}</a></div>
</div>`,
  );
}
