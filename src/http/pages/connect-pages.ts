import { brasiliaTime, escapeHtml, renderPage, shopEyebrow } from '../../html/page-layout';
import type { LinkPage } from '../../shop-registry/connect-links';

/*
 * The pages a shop's owner sees when connecting the shop's provider account (CONTRACT
 * "Connecting a shop's provider account"): pt-BR, naming the shop and the provider, one button.
 */

const ABOUT = 'Conexão da conta de pagamento';

/** What each provider's link says the owner does there (pt-BR, with its article). */
const WHAT_HAPPENS: Record<string, { title: string; steps: string }> = {
  mercadopago: {
    title: 'Conectar a conta do Mercado Pago',
    steps:
      'Você entra no Mercado Pago com o seu login e autoriza o acesso. Nenhuma senha ou chave é enviada a ninguém, e você pode revogar o acesso no Mercado Pago quando quiser.',
  },
  stripe: {
    title: 'Conectar a conta Stripe',
    steps:
      'Você preenche na Stripe o cadastro da loja (dados da empresa e a conta bancária que recebe os valores). Nenhuma senha ou chave é enviada a ninguém.',
  },
};

/** The link's page: what connecting does, and its one button (Asaas's: a form and its button). */
export function connectPage(page: LinkPage, token: string): string {
  if (page.provider === 'asaas') return asaasFormPage(page, token);
  const provider = escapeHtml(page.providerLabel);
  const what = WHAT_HAPPENS[page.provider] ?? {
    title: `Conectar a conta ${page.providerLabel}`,
    steps: 'Nenhuma senha ou chave é enviada a ninguém.',
  };
  return renderPage(
    `Conectar ${page.providerLabel} — ${page.shopName}`,
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1>${escapeHtml(what.title)}</h1>
  <p>Para receber os pagamentos dos pedidos da loja <strong data-testid="connect-shop">${escapeHtml(page.shopName)}</strong>, conecte a conta ${provider} da loja.</p>
  <p>${escapeHtml(what.steps)}</p>
  <form method="post" action="/connect/${encodeURIComponent(token)}/start">
    <div class="actions"><button class="pay" type="submit" data-testid="connect-button">Conectar com ${provider}</button></div>
  </form>
  <p class="note">Este link pode ser usado uma vez e vale até ${escapeHtml(brasiliaTime(page.expiresAt))} (horário de Brasília).</p>
</div>`,
  );
}

/** After the provider confirmed the connection. */
export function connectedPage(
  page: Pick<LinkPage, 'shopName' | 'provider' | 'providerLabel'>,
): string {
  const provider = escapeHtml(page.providerLabel);
  return renderPage(
    'Conta conectada',
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1 class="ok" data-testid="connect-result">Conta conectada</h1>
  <p class="status">A conta ${provider} da loja ${escapeHtml(page.shopName)} está conectada. Os próximos pagamentos já são recebidos nela.</p>${page.provider === 'asaas' ? '\n  <p>O Asaas envia ao e-mail informado o acesso à nova conta: entre nela e envie os documentos que ele pede, para que os valores possam ser transferidos.</p>' : ''}
  <p class="note">Você já pode fechar esta página.</p>
</div>`,
  );
}

/** A page that says how a connection ended, and what to do: a title, and one line. */
function outcomePage(title: string, tone: 'bad' | undefined, text: string): string {
  return renderPage(
    title,
    `<div class="card">
  <p class="eyebrow"><span>${ABOUT}</span></p>
  <h1${tone ? ` class="${tone}"` : ''} data-testid="connect-result">${escapeHtml(title)}</h1>
  <p class="status">${escapeHtml(text)}</p>
</div>`,
  );
}

/** The owner cancelled at the provider: nothing changed, the link still works. */
export function connectCancelledPage(): string {
  return outcomePage(
    'Conexão cancelada',
    undefined,
    'Nada foi alterado. Para conectar a conta, abra outra vez o link que você recebeu.',
  );
}

/** The provider did not confirm (its answer failed): nothing changed, the link works again. */
export function connectFailedPage(): string {
  return outcomePage(
    'Não foi possível conectar',
    'bad',
    'O provedor de pagamento não confirmou a autorização. Nada foi alterado: abra outra vez o link que você recebeu para tentar de novo, em alguns minutos.',
  );
}

/** An unknown, used or expired link. */
export function connectLinkNotFoundPage(): string {
  return outcomePage(
    'Link inválido',
    'bad',
    'Este link de conexão não vale mais: já foi usado, expirou ou não existe. Peça um novo link a quem o enviou.',
  );
}

/** A callback in a browser other than the one that pressed the link's button: nothing changed. */
export function connectOtherBrowserPage(): string {
  return outcomePage(
    'Abra o link no mesmo navegador',
    'bad',
    'A conexão foi iniciada em outro navegador. Nada foi alterado: abra o link que você recebeu neste navegador e conecte a conta por ele, do começo ao fim.',
  );
}

/** The provider refused the data of this link too often in the last hour. */
export function connectTooManyPage(): string {
  return outcomePage(
    'Muitas tentativas',
    'bad',
    'Os dados enviados por este link foram recusados muitas vezes na última hora. Nada foi alterado: confira os dados e tente de novo daqui a uma hora, pelo mesmo link.',
  );
}

/** One field of the Asaas form: its label, its input, and what Asaas or we refused in it. */
interface FormField {
  name: string;
  label: string;
  type?: string;
  autocomplete?: string;
  hint?: string;
  optional?: boolean;
  /** A choice: its values and their labels. */
  options?: ReadonlyArray<[string, string]>;
}

const ASAAS_FIELDS: readonly FormField[] = [
  { name: 'name', label: 'Nome ou razão social', autocomplete: 'organization' },
  { name: 'email', label: 'E-mail', type: 'email', autocomplete: 'email' },
  { name: 'cpfCnpj', label: 'CPF ou CNPJ', hint: 'Com ou sem pontuação.' },
  {
    name: 'birthDate',
    label: 'Data de nascimento (para CPF)',
    type: 'date',
    optional: true,
  },
  {
    name: 'companyType',
    label: 'Tipo de empresa (para CNPJ)',
    optional: true,
    options: [
      ['', 'Pessoa física (CPF)'],
      ['MEI', 'MEI'],
      ['LIMITED', 'Sociedade limitada'],
      ['INDIVIDUAL', 'Empresa individual'],
      ['ASSOCIATION', 'Associação'],
    ],
  },
  { name: 'mobilePhone', label: 'Celular com DDD', type: 'tel', autocomplete: 'tel' },
  { name: 'incomeValue', label: 'Faturamento mensal (R$)', type: 'number' },
  { name: 'postalCode', label: 'CEP', autocomplete: 'postal-code' },
  { name: 'address', label: 'Endereço', autocomplete: 'address-line1' },
  { name: 'addressNumber', label: 'Número' },
  { name: 'complement', label: 'Complemento', optional: true },
  { name: 'province', label: 'Bairro' },
];

/**
 * The Asaas link's page: the owner's data for the shop's new Asaas account, one button. Shown
 * again with `problems` (field, what is wrong) and what was typed, when Asaas or we refused it.
 */
export function asaasFormPage(
  page: LinkPage,
  token: string,
  given: Record<string, unknown> = {},
  problems: ReadonlyArray<{ field: string; problem: string }> = [],
): string {
  const fields = ASAAS_FIELDS.map((field) => {
    const value = typeof given[field.name] === 'string' ? (given[field.name] as string) : '';
    const wrong = problems.filter(
      (p) => p.field === field.name || p.field.startsWith(`${field.name}.`),
    );
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
  }).join('\n  ');
  const general = problems.filter(
    (p) => !ASAAS_FIELDS.some((f) => p.field === f.name || p.field.startsWith(`${f.name}.`)),
  );
  return renderPage(
    `Criar a conta Asaas — ${page.shopName}`,
    `<div class="card">
  ${shopEyebrow({ name: page.shopName }, ABOUT)}
  <h1>Criar a conta da loja no Asaas</h1>
  <p>Para receber os pagamentos dos pedidos da loja <strong data-testid="connect-shop">${escapeHtml(page.shopName)}</strong>, uma conta Asaas é criada em nome da loja com os dados abaixo. O Asaas envia ao e-mail informado o acesso à conta, onde você envia os documentos que ele pede.</p>
  ${general.map((p) => `<p class="status bad" role="alert">${escapeHtml(p.problem)}</p>`).join('')}
  <form method="post" action="/connect/${encodeURIComponent(token)}/asaas" class="form">
  ${fields}
    <div class="actions"><button class="pay" type="submit" data-testid="connect-button">Criar conta no Asaas</button></div>
  </form>
  <p class="note">Nenhuma senha ou chave é enviada a ninguém. Este link pode ser usado uma vez e vale até ${escapeHtml(brasiliaTime(page.expiresAt))} (horário de Brasília).</p>
</div>`,
  );
}

/** Back from Stripe before it enabled charges: the connection completes by itself later. */
export function connectPendingPage(shopName: string, continueUrl: string): string {
  return renderPage(
    'Quase lá',
    `<div class="card">
  ${shopEyebrow({ name: shopName }, ABOUT)}
  <h1 data-testid="connect-result">Quase lá</h1>
  <p class="status">A Stripe ainda não liberou a conta da loja ${escapeHtml(shopName)} para receber pagamentos: faltam dados ou a verificação está em andamento.</p>
  <p>A conexão é concluída sozinha assim que a Stripe liberar a conta. Se ainda faltam dados, continue o cadastro:</p>
  <div class="actions"><a class="back" data-testid="connect-continue" href="${escapeHtml(continueUrl)}">Continuar o cadastro na Stripe</a></div>
</div>`,
  );
}

/** The shop cannot be connected to this provider as it stands: the vendor must change it first. */
export function connectBlockedPage(): string {
  return outcomePage(
    'A loja precisa de um ajuste',
    'bad',
    'Antes de conectar esta conta, as formas de pagamento da loja precisam de um ajuste. Nada foi alterado: avise quem enviou o link; depois do ajuste, o mesmo link funciona.',
  );
}
