import { AppError } from '../../errors';
import type { ConnectContext, ConnectTarget, FormField } from '../connect-flow';
import { defineConnectFlow } from '../define-connect-flow';
import { webhookPath } from '../../shop/shop-id';
import { officialOrigins } from '../provider-hosts';
import { asaasVendor, type AsaasRoot } from './asaas-vendor';
import { ASAAS_API } from './asaas-api';
import {
  createSubaccount,
  newWebhookToken,
  registerWebhook,
  subaccountSchema,
  vendorWallet,
  type SubaccountData,
} from './asaas-connect';

type Root = AsaasRoot;

/** How many refusals of a link's data Asaas takes in an hour (CONTRACT), before a 429. */
const ASAAS_REFUSALS_PER_HOUR = 5;

/** The owner's data, as the link's form asks it (Asaas's field names). */
const FORM: readonly FormField[] = [
  { name: 'name', label: 'Nome ou razão social', autocomplete: 'organization' },
  { name: 'email', label: 'E-mail', type: 'email', autocomplete: 'email' },
  { name: 'cpfCnpj', label: 'CPF ou CNPJ', hint: 'Com ou sem pontuação.' },
  { name: 'birthDate', label: 'Data de nascimento (para CPF)', type: 'date', optional: true },
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

function parseSubaccount(input: unknown): SubaccountData {
  const source = { ...((input ?? {}) as Record<string, unknown>) };
  // A form sends every field, empty ones as '': those are absent.
  for (const [field, value] of Object.entries(source)) if (value === '') delete source[field];
  const parsed = subaccountSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_FAILED', 'The account data is not valid.', {
    details: parsed.error.issues.map((issue) => ({
      field:
        issue.path.map(String).join('.') ||
        (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : 'account'),
      problem:
        issue.code === 'unrecognized_keys' ? 'não é um campo de uma conta Asaas' : issue.message,
    })),
  });
}

/**
 * The subaccount's webhook, registered with a token of ours (returned). Should Asaas refuse it,
 * the account is kept: its checkouts are still read by the reconciler, the webhook is a hint;
 * said, so an operator registers it at Asaas.
 */
async function subaccountWebhook(
  ctx: ConnectContext,
  root: Root,
  shop: string,
  subaccount: { apiKey: string; email: string },
): Promise<string> {
  const webhookToken = newWebhookToken();
  try {
    await registerWebhook(root.apiUrl, subaccount.apiKey, {
      url: `${ctx.publicUrl}${webhookPath('asaas', shop)}`,
      authToken: webhookToken,
      email: subaccount.email,
    });
  } catch (error) {
    ctx.log.error("the Asaas subaccount's webhook could not be registered", {
      shop,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return webhookToken;
}

/** Which Asaas the root key calls: an official one by its name, any other by its URL. */
function asaasAt(root: Root): { environment: 'sandbox' | 'production' } | { apiUrl: string } {
  const official = officialOrigins(ASAAS_API).includes(new URL(root.apiUrl).origin);
  if (!official) return { apiUrl: root.apiUrl };
  return { environment: root.apiUrl === ASAAS_API.sandbox ? 'sandbox' : 'production' };
}

/** `refused` is told of Asaas's refusal of the data. */
async function subaccountFor(
  ctx: ConnectContext,
  root: Root,
  target: ConnectTarget,
  data: SubaccountData,
  refused?: () => Promise<unknown>,
): Promise<void> {
  await ctx.precheck(target);
  const walletId = await vendorWallet(root);
  const created = await createSubaccount(root, data).catch(async (error: unknown) => {
    if (error instanceof AppError && error.code === 'VALIDATION_FAILED') await refused?.();
    throw error;
  });
  const { apiKey } = created;
  const webhookToken = await subaccountWebhook(ctx, root, target.shop, {
    apiKey,
    email: data.email,
  });
  await ctx.store(target, {
    name: 'asaas',
    connection: 'subaccount',
    account: created.account,
    connectedAt: ctx.clock().toISOString(),
    apiKey,
    webhookToken,
    walletId: created.walletId,
    vendorWalletId: walletId,
    ...asaasAt(root),
  });
}

/**
 * A shop's Asaas account as a subaccount of the vendor's (CONTRACT "Connecting a shop's provider
 * account"): made from the owner's form (checked before any call with the root key, and at most
 * ASAAS_REFUSALS_PER_HOUR refusals by Asaas a link and hour) or from the admin API's body.
 */
export const asaasLink = defineConnectFlow('asaas', {
  purpose: 'asaas-subaccount',
  vendor: asaasVendor,
  page: {
    title: 'Criar a conta da loja no Asaas',
    steps:
      'Uma conta Asaas é criada em nome da loja com os dados abaixo. O Asaas envia ao e-mail informado o acesso à conta, onde você envia os documentos que ele pede.',
    button: 'Criar conta no Asaas',
    afterConnected:
      'O Asaas envia ao e-mail informado o acesso à nova conta: entre nela e envie os documentos que ele pede, para que os valores possam ser transferidos.',
    form: FORM,
  },

  async submit(ctx, root, target, input) {
    const data = parseSubaccount(input);
    if (!('link' in target)) return subaccountFor(ctx, root, target.shop, data);
    const { link } = target;
    if ((await ctx.refusals(link)) >= ASAAS_REFUSALS_PER_HOUR) {
      throw new AppError(
        'RATE_LIMITED',
        'Asaas refused the data of this link too often in the last hour: try again later.',
      );
    }
    await ctx.use(link, () => subaccountFor(ctx, root, link, data, () => ctx.countRefusal(link)));
  },
});
