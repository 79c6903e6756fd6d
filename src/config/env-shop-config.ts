import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  maxInstallmentsVariable,
  paymentChoiceProblems,
  paymentMethodsVariable,
  PAYMENT_VARIABLES,
  type PaymentDocument,
} from '../payments/payment-options';
import {
  httpUrl,
  providerApiProblem,
  providerDocumentFromEnv,
  providerEnvProblems,
  PROVIDER_CHOICE,
  PROVIDER_NAMES,
  providerVariable,
  requiredProviderVariables,
  type ProviderDocument,
  type ProviderName,
} from '../payments/provider-fields';
import { DEFAULT_PROVIDER, PROVIDER_LIST } from '../payments/providers';
import { ENV_SHOP_ID } from '../shop/shop-id';
import { optional, readEnvironment, requireFor, secret } from './env-values';
import { platformAccountShape, type PlatformAccount } from './platform-config';

export const routeToken = z.string().min(16, 'must be at least 16 characters');

/** The env shop's variables (CONTRACT "Shops"), all optional: PLATFORM_EMAIL requires the rest. */
export const envShopShape = {
  SHOP_NAME: optional(z.string()).describe(
    "The env shop's name, as its customers' pages show it (1 to 100 printable characters). Without it the pages name no shop.",
  ),
  SHOP_SITE_URL: optional(httpUrl).describe(
    'The env shop\'s site: the customer\'s pages offer "Voltar à loja" to it (an http or https URL).',
  ),
  PLATFORM_EMAIL: optional(platformAccountShape.PLATFORM_EMAIL),
  PLATFORM_PASSWORD: optional(platformAccountShape.PLATFORM_PASSWORD),
  PLATFORM_API_KEY: optional(platformAccountShape.PLATFORM_API_KEY),
  CHECKOUT_ROUTE_PATH: z
    .string()
    .regex(/^\/[A-Za-z0-9/_.-]*$/, 'must be a path starting with /')
    .prefault('/checkout')
    .describe('Path of the checkout route you register with the platform.'),
  CHECKOUT_ROUTE_TOKEN: secret(
    routeToken
      .optional()
      .describe(
        'Token the platform must present (Bearer, `X-Api-Key` or `?token=`); at least 16 characters.',
      ),
  ),
  PAYMENT_PROVIDER: z
    .enum(PROVIDER_NAMES as [ProviderName, ...ProviderName[]], {
      error: `must be ${PROVIDER_CHOICE}`,
    })
    .prefault(DEFAULT_PROVIDER)
    .describe(
      `The env shop's payment provider: ${PROVIDER_CHOICE} (docs/payment-providers.md "Payment providers").`,
    ),
  ...providerVariables(),
  PAYMENT_METHODS: paymentMethodsVariable
    .optional()
    .describe(
      "The env shop's methods: a comma-separated subset of `pix,card,boleto`; empty for all the provider offers (some offer fewer: its section of docs/payment-providers.md). A method the provider cannot take is refused at start (78).",
    ),
  SHOP_PLAN_DEPOSIT_PERCENT: optional(z.coerce.number()).describe(
    "The env shop's deposit, in percent of the order (1 to 99): its customers pay on the connector's page, a deposit now and the balance later (docs/plans.md).",
  ),
  SHOP_PLAN_FINISH_ON: optional(z.string()).describe(
    '`deposit` (the default) or `full`: when the platform hears the finish of a planned order.',
  ),
  SHOP_PLAN_BALANCE_DUE_DAYS: optional(z.coerce.number()).describe(
    'Days after the checkout opened by which the balance is due (0 to 365; 30 when empty).',
  ),
  SHOP_PLAN_SPLIT_TENDER: optional(
    z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true'),
  ).describe('`true`: a part may be paid two ways (two cards, Pix and card).'),
  CARD_MAX_INSTALLMENTS: maxInstallmentsVariable
    .optional()
    .describe(
      'Installments a card payment may be split into (1 to 12); empty for 1. More than the provider can split is refused at start (Stripe takes only 1: it cannot split a card payment in BRL).',
    ),
};

/** Each provider's fields as optional variables, flagged secret where its descriptor says so. */
function providerVariables(): Record<string, z.ZodType> {
  return Object.fromEntries(
    PROVIDER_LIST.flatMap((provider) =>
      provider.rows.flatMap((row) => {
        // A field kept in files: each variable is a path; the document's schema checks contents.
        const { file } = row;
        if (file) {
          return row.variables.map((name, i) => [
            name,
            fileVariable(file, row.fileDescriptions?.[i] ?? `The path of a file of ${row.field}.`),
          ]);
        }
        const variable = optional(row.schema);
        return [[row.variable, row.secret ? secret(variable) : variable]];
      }),
    ),
  );
}

/** A variable naming a file the env shop's field is read from: its contents, or a problem. */
function fileVariable(encoding: 'pem' | 'base64', description: string) {
  return optional(
    z.string().transform((path, context) => {
      try {
        const contents = readFileSync(path);
        return encoding === 'base64' ? contents.toString('base64') : contents.toString('utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
        context.addIssue({ code: 'custom', message: `cannot read the file ${path} (${code})` });
        return z.NEVER;
      }
    }),
  ).describe(description);
}

type EnvShopEnv = z.output<z.ZodObject<typeof envShopShape>>;

export interface EnvShopConfig {
  name?: string;
  siteUrl?: string;
  platform: PlatformAccount;
  routePath: string;
  routeToken: string;
  providerDocument: ProviderDocument;
  payment: PaymentDocument;
  /** The SHOP_PLAN_* variables as a document's `plan` (checked by its schema); none unset. */
  plan?: Record<string, unknown>;
}

/** The variables PLATFORM_EMAIL (the env shop) requires. */
export const ENV_SHOP_ACCOUNT = [
  'PLATFORM_PASSWORD',
  'PLATFORM_API_KEY',
  'CHECKOUT_ROUTE_TOKEN',
] as const;

/** With PLATFORM_EMAIL the rest is required, the payment choice checked; without, none is set. */
export function envShopIssues(env: EnvShopEnv, expiryMinutes: number, ctx: z.RefinementCtx): void {
  if (env.PLATFORM_EMAIL === undefined) {
    const stray = ENV_SHOP_ACCOUNT.filter((name) => env[name] !== undefined);
    if (stray.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['PLATFORM_EMAIL'],
        message: `is required with ${stray.join(', ')}: it defines the env shop (unset them all to serve registry shops only)`,
      });
    }
    return;
  }
  requireFor(env, ctx, ENV_SHOP_ACCOUNT, 'PLATFORM_EMAIL (the env shop)');
  requireFor(
    env,
    ctx,
    requiredProviderVariables(env.PAYMENT_PROVIDER),
    `PAYMENT_PROVIDER=${env.PAYMENT_PROVIDER}`,
  );
  const choice = {
    methods: env.PAYMENT_METHODS,
    maxInstallments: env.CARD_MAX_INSTALLMENTS,
    expiryMinutes,
  };
  for (const { part, problem } of paymentChoiceProblems(env.PAYMENT_PROVIDER, choice)) {
    ctx.addIssue({ code: 'custom', path: [PAYMENT_VARIABLES[part]], message: problem });
  }
}

/** The env shop's provider API URL (`<PROVIDER>_API_URL`) under the same rule as a document's. */
export function envShopApiIssues(
  env: EnvShopEnv & { PROVIDER_API_ORIGINS?: string[] },
  ctx: z.RefinementCtx,
): void {
  if (env.PLATFORM_EMAIL === undefined) return;
  const name = env.PAYMENT_PROVIDER;
  const values = env as Record<string, unknown>;
  // A URL that is not one at all: its own schema said so already.
  const urlOf = (field: string) => {
    const value = values[providerVariable(name, field)];
    return typeof value === 'string' && httpUrl.safeParse(value).success ? value : undefined;
  };
  const found = providerApiProblem(
    { name, apiUrl: urlOf('apiUrl'), tokenUrl: urlOf('tokenUrl') },
    env.PROVIDER_API_ORIGINS ?? [],
  );
  if (found) {
    const variable = providerVariable(name, found.field);
    ctx.addIssue({ code: 'custom', path: [variable], message: found.problem });
  }
  // Rules across fields (a certificate and its key); a missing or malformed one was said already.
  for (const found of providerEnvProblems(env.PAYMENT_PROVIDER, env)) {
    ctx.addIssue({ code: 'custom', path: [found.variable], message: found.problem });
  }
}

/** The env shop's settings, or undefined without PLATFORM_EMAIL (registry shops only). */
export function envShopConfig(raw: EnvShopEnv): EnvShopConfig | undefined {
  const { PLATFORM_EMAIL, PLATFORM_PASSWORD, PLATFORM_API_KEY, CHECKOUT_ROUTE_TOKEN } = raw;
  if (!PLATFORM_EMAIL || !PLATFORM_PASSWORD || !PLATFORM_API_KEY || !CHECKOUT_ROUTE_TOKEN)
    return undefined;
  const providerDocument = providerDocumentFromEnv(raw.PAYMENT_PROVIDER, raw);
  const payment = {
    ...(raw.PAYMENT_METHODS === undefined ? {} : { methods: raw.PAYMENT_METHODS }),
    ...(raw.CARD_MAX_INSTALLMENTS === undefined
      ? {}
      : { maxInstallments: raw.CARD_MAX_INSTALLMENTS }),
  };
  return {
    ...(raw.SHOP_NAME === undefined ? {} : { name: raw.SHOP_NAME }),
    ...(raw.SHOP_SITE_URL === undefined ? {} : { siteUrl: raw.SHOP_SITE_URL }),
    platform: { email: PLATFORM_EMAIL, password: PLATFORM_PASSWORD, apiKey: PLATFORM_API_KEY },
    routePath: raw.CHECKOUT_ROUTE_PATH,
    routeToken: CHECKOUT_ROUTE_TOKEN,
    providerDocument,
    payment,
    ...planOfEnv(raw),
  };
}

/** The SHOP_PLAN_* variables as a document's `plan`, left for its schema to check. */
function planOfEnv(raw: EnvShopEnv): { plan?: Record<string, unknown> } {
  const plan = {
    ...(raw.SHOP_PLAN_DEPOSIT_PERCENT === undefined
      ? {}
      : { deposit: { percent: raw.SHOP_PLAN_DEPOSIT_PERCENT } }),
    ...(raw.SHOP_PLAN_FINISH_ON === undefined ? {} : { finishOn: raw.SHOP_PLAN_FINISH_ON }),
    ...(raw.SHOP_PLAN_BALANCE_DUE_DAYS === undefined
      ? {}
      : { balanceDueDays: raw.SHOP_PLAN_BALANCE_DUE_DAYS }),
    ...(raw.SHOP_PLAN_SPLIT_TENDER === undefined
      ? {}
      : { splitTender: raw.SHOP_PLAN_SPLIT_TENDER }),
  };
  return Object.keys(plan).length > 0 ? { plan } : {};
}

export interface EnvShopSummary {
  id: typeof ENV_SHOP_ID;
  name?: string;
  source: 'environment';
  provider: { name: string };
  platform: { email: string };
}

/** The env shop as `shops list` shows it, as given, nothing else required; or undefined. */
export function envShopSummary(
  given: Record<string, string | undefined>,
  cwd = process.cwd(),
): EnvShopSummary | undefined {
  const env = readEnvironment(given, cwd);
  const email = env.PLATFORM_EMAIL?.trim();
  if (!email) return undefined;
  const name = env.SHOP_NAME?.trim();
  return {
    id: ENV_SHOP_ID,
    ...(name ? { name } : {}),
    source: 'environment',
    provider: { name: env.PAYMENT_PROVIDER?.trim() || DEFAULT_PROVIDER },
    platform: { email },
  };
}
