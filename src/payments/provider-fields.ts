import { z } from 'zod';
import { ASAAS_API } from './asaas/asaas-api';
import { MERCADOPAGO_API } from './mercadopago/mercadopago-api';
import { paymentOptionsOf, type PaymentChoice, type PaymentOptions } from './payment-options';
import type { ApiEnvironment, ProviderApi } from './provider-api';
import { apiBaseUrl, apiUrlProblem, environmentField } from './provider-hosts';
import { STRIPE_API } from './stripe/stripe-api';

/**
 * Each provider's settings, declared once: the environment's variables (`STRIPE_SECRET_KEY`) and
 * a registry shop's document (`"provider": {"name": "stripe", "secretKey": ...}`) are checked by
 * the same field schemas. A field `fooBar` of provider `x` is the variable `X_FOO_BAR`.
 */

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const paymentMethods = z
  .string()
  .regex(/^[a-z_]+(,[a-z_]+)*$/, 'must be a comma-separated list such as card,pix,boleto');

/** Stripe Checkout (src/payments/stripe/). */
export const stripeFields = {
  secretKey: z
    .string()
    .regex(
      /^(sk|rk)_(test|live)_\w+$/,
      'must be a Stripe secret or restricted key (sk_... or rk_...)',
    )
    .describe(
      'Secret key (sk_live_... or sk_test_..., or a restricted rk_ key) from the Stripe dashboard.',
    ),
  webhookSecret: z
    .string()
    .regex(/^whsec_\w+$/, "must be the endpoint's signing secret (whsec_...)")
    .describe('Signing secret (whsec_...) of the webhook endpoint PUBLIC_URL/webhooks/stripe.'),
  environment: environmentField(STRIPE_API).describe(
    'Stripe has one API host: empty or production (a test key, sk_test_..., selects test mode).',
  ),
  apiUrl: httpUrl
    .optional()
    .describe(
      'Another Stripe API host (its origin must be in PROVIDER_API_ORIGINS), e.g. a local fake for tests (http://127.0.0.1:12111); empty for https://api.stripe.com.',
    ),
  paymentMethods: paymentMethods
    .optional()
    .describe(
      'Payment methods offered, e.g. card,pix,boleto; empty lets the Stripe dashboard decide.',
    ),
};

/** Mercado Pago Checkout Pro (src/payments/mercadopago/). */
export const mercadoPagoFields = {
  accessToken: z
    .string()
    .regex(/^(APP_USR|TEST)-[\w-]+$/, 'must be an access token (APP_USR-... or TEST-...)')
    .describe(
      'Access token (APP_USR-... in production, TEST-... for test users) of your application.',
    ),
  webhookSecret: z
    .string()
    .min(16, 'must be at least 16 characters')
    .describe(
      "Secret signature of your application's webhooks (x-signature); at least 16 characters.",
    ),
  environment: environmentField(MERCADOPAGO_API).describe(
    'Mercado Pago has one API host: empty or production (test credentials select its test environment).',
  ),
  apiUrl: httpUrl
    .optional()
    .describe(
      'Another Mercado Pago API host (its origin must be in PROVIDER_API_ORIGINS), e.g. a local fake for tests; empty for https://api.mercadopago.com.',
    ),
};

/** Asaas Checkout (src/payments/asaas/). */
export const asaasFields = {
  // Asaas's keys begin with $aact_ (production $aact_prod_..., sandbox $aact_hmlg_...).
  apiKey: z
    .string()
    .regex(/^\$aact_\S+$/, 'must be an Asaas API key ($aact_...)')
    .describe("API key of the Asaas account ($aact_...; the sandbox's and production's differ)."),
  // The authToken of the webhook as registered at Asaas, which accepts 32 to 255 characters.
  webhookToken: z
    .string()
    .regex(/^\S{32,255}$/, 'must be 32 to 255 characters without spaces, as Asaas requires')
    .describe(
      'The authentication token of the webhook registered at Asaas (32 to 255 characters); Asaas sends it in the asaas-access-token header.',
    ),
  environment: environmentField(ASAAS_API).describe(
    'production (empty: https://api.asaas.com/v3) or sandbox (https://api-sandbox.asaas.com/v3).',
  ),
  apiUrl: httpUrl
    .optional()
    .describe(
      "The API with its /v3 when neither: its origin must be in PROVIDER_API_ORIGINS (a local fake for tests); empty for ASAAS_ENVIRONMENT's host.",
    ),
};

/**
 * Every provider: its fields, which of them are secrets (stored encrypted, never shown), and
 * where its API is (the sandbox is the connector's own: no API).
 */
export const PROVIDER_FIELDS = {
  sandbox: { fields: {}, secrets: [], api: undefined },
  stripe: { fields: stripeFields, secrets: ['secretKey', 'webhookSecret'], api: STRIPE_API },
  mercadopago: {
    fields: mercadoPagoFields,
    secrets: ['accessToken', 'webhookSecret'],
    api: MERCADOPAGO_API,
  },
  asaas: { fields: asaasFields, secrets: ['apiKey', 'webhookToken'], api: ASAAS_API },
} as const;

export type ProviderName = keyof typeof PROVIDER_FIELDS;
export const PROVIDER_NAMES = Object.keys(PROVIDER_FIELDS) as ProviderName[];

/** The providers as a choice says them: `sandbox, stripe, mercadopago or asaas`. */
export const PROVIDER_CHOICE = `${PROVIDER_NAMES.slice(0, -1).join(', ')} or ${PROVIDER_NAMES.at(-1)}`;

/** The `provider` of a shop's document: its name and that provider's fields, nothing else. */
export const providerDocumentSchema = z.discriminatedUnion('name', [
  z.strictObject({ name: z.literal('sandbox') }),
  z.strictObject({ name: z.literal('stripe'), ...stripeFields }),
  z.strictObject({ name: z.literal('mercadopago'), ...mercadoPagoFields }),
  z.strictObject({ name: z.literal('asaas'), ...asaasFields }),
]);

export type ProviderDocument = z.output<typeof providerDocumentSchema>;

/**
 * What is wrong with a provider document's `apiUrl` in this deployment (`listed`: the origins of
 * PROVIDER_API_ORIGINS), or undefined when it has none or its host is allowed.
 */
export function providerApiProblem(
  provider: { name: string; apiUrl?: string },
  listed: readonly string[],
): string | undefined {
  const api = (PROVIDER_FIELDS as Record<string, { api?: ProviderApi }>)[provider.name]?.api;
  if (!api || provider.apiUrl === undefined) return undefined;
  return apiUrlProblem(api, provider.apiUrl, listed);
}

/** The base URL a provider's adapter calls: the document's `apiUrl`, or its environment's host. */
function baseUrlOf(
  api: ProviderApi,
  document: { environment?: ApiEnvironment; apiUrl?: string },
): string {
  return document.apiUrl ?? apiBaseUrl(api, document.environment);
}

/** The secret fields of a provider's document. */
export function providerSecretFields(name: ProviderName): readonly string[] {
  return PROVIDER_FIELDS[name].secrets;
}

/** A shop's provider as the adapters are built with it (src/payments/registry.ts). */
export interface ProviderSettings {
  name: ProviderName;
  /** The sandbox may run under NODE_ENV=production (SANDBOX_IN_PRODUCTION=true, a staging platform). */
  sandboxInProduction: boolean;
  stripe?: { secretKey: string; webhookSecret: string; apiUrl?: string; paymentMethods?: string[] };
  mercadopago?: { accessToken: string; webhookSecret: string; apiUrl?: string };
  asaas?: { apiKey: string; webhookToken: string; apiUrl?: string };
  /** How customers may pay: the shop's choice, or what the provider offers. */
  payment: PaymentOptions;
  /** The shop's own checkout expiry, when it chose one (else the deployment's). */
  expiryMinutes?: number;
}

/** The settings a provider document (a registry shop's) stands for, with the shop's payment choice. */
export function providerSettingsOf(
  document: ProviderDocument,
  sandboxInProduction: boolean,
  choice: PaymentChoice = {},
): ProviderSettings {
  const common = {
    payment: paymentOptionsOf(document.name, choice),
    ...(choice.expiryMinutes === undefined ? {} : { expiryMinutes: choice.expiryMinutes }),
  };
  switch (document.name) {
    case 'sandbox':
      return { name: 'sandbox', sandboxInProduction, ...common };
    case 'stripe': {
      const { name, paymentMethods, environment: _e, ...stripe } = document;
      return {
        name,
        sandboxInProduction: false,
        stripe: {
          ...stripe,
          apiUrl: baseUrlOf(STRIPE_API, document),
          paymentMethods: paymentMethods?.split(','),
        },
        ...common,
      };
    }
    case 'mercadopago': {
      const { name, environment: _e, ...mercadopago } = document;
      const apiUrl = baseUrlOf(MERCADOPAGO_API, document);
      return {
        name,
        sandboxInProduction: false,
        mercadopago: { ...mercadopago, apiUrl },
        ...common,
      };
    }
    case 'asaas': {
      const { name, environment: _e, ...asaas } = document;
      const apiUrl = baseUrlOf(ASAAS_API, document);
      return { name, sandboxInProduction: false, asaas: { ...asaas, apiUrl }, ...common };
    }
  }
}

/** The secret values of a provider's settings: never logged. */
export function providerSecrets(settings: ProviderSettings): string[] {
  const own = (settings as unknown as Record<string, Record<string, unknown> | undefined>)[
    settings.name
  ];
  return PROVIDER_FIELDS[settings.name].secrets
    .map((field: string) => own?.[field])
    .filter((value): value is string => typeof value === 'string');
}

/** The variable of a provider's field: `webhookSecret` of `stripe` is STRIPE_WEBHOOK_SECRET. */
export function providerVariable(name: ProviderName, field: string): string {
  return `${name.toUpperCase()}_${field.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** Every provider's fields as variables, each optional (which are required depends on the provider). */
export function providerVariableShape(): Record<string, z.ZodType> {
  return Object.fromEntries(
    PROVIDER_NAMES.flatMap((name) =>
      Object.entries(PROVIDER_FIELDS[name].fields as Record<string, z.ZodType>).map(
        ([field, schema]) => [providerVariable(name, field), optionalVariable(schema)],
      ),
    ),
  );
}

/** `schema.optional()` with the field's description, which zod keeps per instance. */
function optionalVariable(schema: z.ZodType): z.ZodType {
  const variable = schema.optional();
  return schema.description ? variable.describe(schema.description) : variable;
}

/** The variables a provider cannot do without (its fields that are not optional). */
export function requiredProviderVariables(name: ProviderName): string[] {
  return Object.entries(PROVIDER_FIELDS[name].fields as Record<string, z.ZodType>)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([field]) => providerVariable(name, field));
}

/** The provider document the environment's variables stand for (checked by the same schema). */
export function providerDocumentFromEnv(
  name: ProviderName,
  env: Record<string, unknown>,
): ProviderDocument {
  const fields = Object.keys(PROVIDER_FIELDS[name].fields).flatMap((field) => {
    const value = env[providerVariable(name, field)];
    return value === undefined ? [] : [[field, value]];
  });
  return providerDocumentSchema.parse({ name, ...Object.fromEntries(fields) });
}

/** The variables of every provider's secret fields: STRIPE_SECRET_KEY, ASAAS_API_KEY... */
export function providerSecretVariables(): string[] {
  return PROVIDER_NAMES.flatMap((name) =>
    PROVIDER_FIELDS[name].secrets.map((field) => providerVariable(name, field)),
  );
}
