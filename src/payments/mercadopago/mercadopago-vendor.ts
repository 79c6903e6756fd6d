import { z } from 'zod';
import type { VendorSpec } from '../connect-flow';
import { apiBaseUrl, apiUrlProblem, httpUrl, withoutTrailingSlashes } from '../provider-hosts';
import { MERCADOPAGO_API } from './mercadopago-api';

/** The vendor's Mercado Pago application, with which shops' accounts are connected by OAuth. */
export interface MercadoPagoApplication {
  /** MERCADOPAGO_CLIENT_ID and MERCADOPAGO_CLIENT_SECRET: the vendor's application. */
  clientId: string;
  clientSecret: string;
  /** MERCADOPAGO_AUTH_URL: where the owner authorizes the application. */
  authUrl: string;
  /** MERCADOPAGO_API_URL, or Mercado Pago's own API: where `/oauth/token` is. */
  apiUrl: string;
  /** MERCADOPAGO_WEBHOOK_SECRET: the application's notifications are signed with it. */
  webhookSecret: string;
}

const variables = {
  MERCADOPAGO_CLIENT_ID: z
    .string()
    .regex(/^\d{4,32}$/, "must be your application's numeric Client ID")
    .optional()
    .describe(
      `Client ID of your Mercado Pago application: with it, shop owners connect their Mercado Pago accounts by OAuth, through the connect links (docs/shops.md "Connecting a shop's provider account").`,
    ),
  MERCADOPAGO_CLIENT_SECRET: z
    .string()
    .min(8, 'must be at least 8 characters')
    .optional()
    .describe('Client Secret of your Mercado Pago application (with `MERCADOPAGO_CLIENT_ID`).'),
  MERCADOPAGO_AUTH_URL: httpUrl
    .prefault('https://auth.mercadopago.com.br')
    .describe(
      "Where the shop owner authorizes your application (Mercado Pago's for Brazil); the callback is `$PUBLIC_URL/connect/mercadopago/callback`, which your application must list as its redirect URL.",
    ),
};

const REQUIRED = [
  'MERCADOPAGO_CLIENT_ID',
  'MERCADOPAGO_CLIENT_SECRET',
  'MERCADOPAGO_WEBHOOK_SECRET',
];

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * The vendor's application from the deployment's variables. MERCADOPAGO_API_URL and
 * MERCADOPAGO_WEBHOOK_SECRET are the env shop's provider variables, read here too: one Mercado
 * Pago application signs both.
 */
export const mercadoPagoVendor: VendorSpec<MercadoPagoApplication, typeof variables> = {
  variables,
  secrets: ['MERCADOPAGO_CLIENT_SECRET'],
  reads: ['apiUrl', 'webhookSecret'],
  required: REQUIRED,
  from(env) {
    const clientId = env.MERCADOPAGO_CLIENT_ID;
    const clientSecret = env.MERCADOPAGO_CLIENT_SECRET;
    const webhookSecret = text(env.MERCADOPAGO_WEBHOOK_SECRET);
    if (!clientId || !clientSecret || !webhookSecret) return undefined;
    return {
      clientId,
      clientSecret,
      authUrl: withoutTrailingSlashes(env.MERCADOPAGO_AUTH_URL),
      apiUrl: withoutTrailingSlashes(text(env.MERCADOPAGO_API_URL) ?? apiBaseUrl(MERCADOPAGO_API)),
      webhookSecret,
    };
  },
  problems(env) {
    if (env.MERCADOPAGO_CLIENT_ID === undefined && env.MERCADOPAGO_CLIENT_SECRET === undefined) {
      return [];
    }
    const problems = REQUIRED.filter((name) => env[name] === undefined).map((variable) => ({
      variable,
      problem:
        'is required with a Mercado Pago application to connect shops (MERCADOPAGO_CLIENT_ID)',
    }));
    const apiUrl = text(env.MERCADOPAGO_API_URL);
    const listed = Array.isArray(env.PROVIDER_API_ORIGINS)
      ? (env.PROVIDER_API_ORIGINS as string[])
      : [];
    const problem =
      apiUrl === undefined ? undefined : apiUrlProblem(MERCADOPAGO_API, apiUrl, listed);
    return problem ? [...problems, { variable: 'MERCADOPAGO_API_URL', problem }] : problems;
  },
};
