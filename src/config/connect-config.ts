import { z } from 'zod';
import { apiBaseUrl, apiUrlProblem } from '../payments/provider-hosts';
import { httpUrl } from '../payments/provider-fields';
import { ASAAS_API } from '../payments/asaas/asaas-api';
import { MERCADOPAGO_API } from '../payments/mercadopago/mercadopago-api';
import { STRIPE_API } from '../payments/stripe/stripe-api';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { feeFixed, feePercent, vendorFeeOf } from '../payments/vendor-fee';
import { PROVIDERS } from '../payments/providers';
import { optional, requireFor, secret } from './env-values';

/** A decimal variable (`2.5`, `0.50`) checked by a number schema. */
function decimal(schema: z.ZodType<number, number>) {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a decimal number such as 2.5')
    .transform(Number)
    .pipe(schema);
}

/** `30d`, `720h`: days or hours, as milliseconds. */
const DAYS = /^(\d+)(d|h)$/;
const renewBefore = z
  .string()
  .regex(DAYS, 'must be days or hours, such as 30d or 720h')
  .transform((text) => {
    const [, digits = '0', unit = 'd'] = DAYS.exec(text) ?? [];
    return Number(digits) * (unit === 'd' ? 86_400_000 : 3_600_000);
  })
  .refine(
    (ms) => ms >= 8 * 86_400_000 && ms <= 150 * 86_400_000,
    'must be 8d to 150d: a token is renewed more than 7 days ahead, when ConnectorCredentialExpiringSoon would warn',
  );

/**
 * The vendor's own provider accounts, with which shops' accounts are connected without pasted
 * keys (CONTRACT "Connecting a shop's provider account"), and the vendor's fee.
 * MERCADOPAGO_API_URL and MERCADOPAGO_WEBHOOK_SECRET are the env shop's provider variables,
 * read here too: one Mercado Pago application signs both.
 */
export const connectShape = {
  MERCADOPAGO_CLIENT_ID: z
    .string()
    .regex(/^\d{4,32}$/, "must be your application's numeric Client ID")
    .optional()
    .describe(
      `Client ID of your Mercado Pago application: with it, shop owners connect their Mercado Pago accounts by OAuth, through the connect links (docs/shops.md "Connecting a shop's provider account").`,
    ),
  MERCADOPAGO_CLIENT_SECRET: secret(
    z
      .string()
      .min(8, 'must be at least 8 characters')
      .optional()
      .describe('Client Secret of your Mercado Pago application (with `MERCADOPAGO_CLIENT_ID`).'),
  ),
  MERCADOPAGO_AUTH_URL: httpUrl
    .prefault('https://auth.mercadopago.com.br')
    .describe(
      "Where the shop owner authorizes your application (Mercado Pago's for Brazil); the callback is `$PUBLIC_URL/connect/mercadopago/callback`, which your application must list as its redirect URL.",
    ),
  ASAAS_ROOT_API_KEY: secret(
    z
      .string()
      .regex(/^\$aact_\S+$/, 'must be an Asaas API key ($aact_...)')
      .optional()
      .describe(
        `API key of your own Asaas account: with it, each shop's connect link creates the shop's Asaas subaccount (docs/shops.md "Connecting a shop's provider account"). Its environment is \`ASAAS_ENVIRONMENT\`'s (or \`ASAAS_API_URL\`).`,
      ),
  ),
  ASAAS_VENDOR_WALLET_ID: z
    .uuid('must be an Asaas walletId (a UUID)')
    .optional()
    .describe(
      "The Asaas wallet your fee is paid into (`splits`); unset: your root account's own, read when a shop connects.",
    ),
  STRIPE_CONNECT_SECRET_KEY: secret(
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_... or rk_...)')
      .optional()
      .describe(
        `Secret key of your Stripe platform account (Connect): with it, each shop's connect link onboards the shop as an Express account, whose payments are direct charges with your fee (docs/shops.md "Connecting a shop's provider account").`,
      ),
  ),
  STRIPE_CONNECT_WEBHOOK_SECRET: secret(
    z
      .string()
      .regex(/^whsec_\w+$/, "must be the endpoint's signing secret (whsec_...)")
      .optional()
      .describe(
        'Signing secret of your Connect webhook endpoint `PUBLIC_URL/webhooks/stripe-connect` (events of connected accounts); required with `STRIPE_CONNECT_SECRET_KEY`.',
      ),
  ),
  VENDOR_FEE_PERCENT: decimal(feePercent)
    .prefault('0')
    .describe(
      'Your fee on each payment of a connected shop: a percent of the amount (`2.5`, at most two decimals), rounded half up to the centavo; a shop\'s document may say its own (`"vendorFee"`).',
    ),
  VENDOR_FEE_FIXED: decimal(feeFixed)
    .prefault('0')
    .describe('Reais added to your fee on each payment of a connected shop (`0.50`).'),
  CREDENTIAL_RENEW_BEFORE: renewBefore
    .prefault('30d')
    .describe(
      "How long before its expiry a connected shop's token is renewed (`30d`, `720h`; 8d to 150d: the alert warns 7 days ahead). One process renews it, whatever the number running.",
    ),
};

type ConnectEnv = z.output<z.ZodObject<typeof connectShape>> & {
  MERCADOPAGO_API_URL?: string;
  MERCADOPAGO_WEBHOOK_SECRET?: string;
  ASAAS_API_URL?: string;
  ASAAS_ENVIRONMENT?: 'production' | 'sandbox';
  STRIPE_API_URL?: string;
  PROVIDER_API_ORIGINS?: string[];
};

/** The variables each vendor account needs once one of them is set. */
export function connectIssues(env: ConnectEnv, ctx: z.RefinementCtx): void {
  if (env.MERCADOPAGO_CLIENT_ID !== undefined || env.MERCADOPAGO_CLIENT_SECRET !== undefined) {
    requireFor(
      env,
      ctx,
      ['MERCADOPAGO_CLIENT_ID', 'MERCADOPAGO_CLIENT_SECRET', 'MERCADOPAGO_WEBHOOK_SECRET'],
      'a Mercado Pago application to connect shops (MERCADOPAGO_CLIENT_ID)',
    );
    if (env.MERCADOPAGO_API_URL !== undefined) {
      const problem = apiUrlProblem(
        MERCADOPAGO_API,
        env.MERCADOPAGO_API_URL,
        env.PROVIDER_API_ORIGINS ?? [],
      );
      if (problem)
        ctx.addIssue({ code: 'custom', path: ['MERCADOPAGO_API_URL'], message: problem });
    }
  }
}

/** The Asaas API the vendor's root account is at: ASAAS_API_URL, or ASAAS_ENVIRONMENT's host. */
function asaasApiOf(env: ConnectEnv): string {
  return (env.ASAAS_API_URL ?? apiBaseUrl(ASAAS_API, env.ASAAS_ENVIRONMENT)).replace(/\/+$/, '');
}

/** The vendor's accounts and fee, as the registry and the connect routes use them. */
export function vendorAccountsFrom(env: ConnectEnv): VendorAccounts {
  const { MERCADOPAGO_CLIENT_ID, MERCADOPAGO_CLIENT_SECRET, MERCADOPAGO_WEBHOOK_SECRET } = env;
  return {
    ...(MERCADOPAGO_CLIENT_ID && MERCADOPAGO_CLIENT_SECRET && MERCADOPAGO_WEBHOOK_SECRET
      ? {
          mercadopago: {
            clientId: MERCADOPAGO_CLIENT_ID,
            clientSecret: MERCADOPAGO_CLIENT_SECRET,
            authUrl: env.MERCADOPAGO_AUTH_URL.replace(/\/+$/, ''),
            apiUrl: (env.MERCADOPAGO_API_URL ?? apiBaseUrl(MERCADOPAGO_API)).replace(/\/+$/, ''),
            webhookSecret: MERCADOPAGO_WEBHOOK_SECRET,
          },
        }
      : {}),
    ...(env.ASAAS_ROOT_API_KEY
      ? {
          asaas: {
            rootApiKey: env.ASAAS_ROOT_API_KEY,
            ...(env.ASAAS_VENDOR_WALLET_ID ? { walletId: env.ASAAS_VENDOR_WALLET_ID } : {}),
            apiUrl: asaasApiOf(env),
          },
        }
      : {}),
    ...(env.STRIPE_CONNECT_SECRET_KEY && env.STRIPE_CONNECT_WEBHOOK_SECRET
      ? {
          stripe: {
            secretKey: env.STRIPE_CONNECT_SECRET_KEY,
            webhookSecret: env.STRIPE_CONNECT_WEBHOOK_SECRET,
            apiUrl: (env.STRIPE_API_URL ?? apiBaseUrl(STRIPE_API)).replace(/\/+$/, ''),
          },
        }
      : {}),
    fee: vendorFeeOf({ percent: env.VENDOR_FEE_PERCENT, fixed: env.VENDOR_FEE_FIXED }),
    renewBeforeMs: env.CREDENTIAL_RENEW_BEFORE,
  };
}

/**
 * The env shop's Mercado Pago variables the vendor's application also reads (its API host and
 * its notifications' secret), for a command that loads no env shop (`connector shops`).
 */
export const vendorProviderShape = {
  MERCADOPAGO_API_URL: optional(PROVIDERS.mercadopago.fields.apiUrl),
  MERCADOPAGO_WEBHOOK_SECRET: secret(optional(PROVIDERS.mercadopago.fields.webhookSecret)),
  ASAAS_API_URL: optional(PROVIDERS.asaas.fields.apiUrl),
  ASAAS_ENVIRONMENT: PROVIDERS.asaas.fields.environment,
  STRIPE_API_URL: optional(PROVIDERS.stripe.fields.apiUrl),
};
