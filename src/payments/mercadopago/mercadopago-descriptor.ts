import { z } from 'zod';
import { webhookPath } from '../../shop/shop-id';
import { defineProvider } from '../define-provider';
import { baseUrlOf, environmentField, httpUrl } from '../provider-hosts';
import { MERCADOPAGO_API, MERCADOPAGO_OFFER } from './mercadopago-api';
import type { VendorAccounts } from '../vendor-accounts';
import type { MercadoPagoApplication } from './mercadopago-vendor';
import { refreshGrant } from './mercadopago-oauth';
import { MercadoPagoProvider } from './mercadopago-provider';
import { mercadoPagoLink } from './mercadopago-link';

const accessToken = z
  .string()
  .regex(/^(APP_USR|TEST)-[\w-]+$/, 'must be an access token (APP_USR-... or TEST-...)');

const apiUrl = httpUrl
  .optional()
  .describe(
    'Another Mercado Pago API host, allowed only when its origin is in `PROVIDER_API_ORIGINS` (a local fake for tests), refused at start (78) otherwise; empty for `https://api.mercadopago.com`.',
  );

/**
 * A connected shop needs the vendor's application in this deployment: its notifications are
 * signed with the application's secret, and its tokens are renewed with the application's keys.
 */
function applicationOf(vendor: VendorAccounts): MercadoPagoApplication {
  const application = mercadoPagoLink.accountOf(vendor);
  if (!application) {
    throw new Error(
      'a shop connected to Mercado Pago needs MERCADOPAGO_CLIENT_ID, MERCADOPAGO_CLIENT_SECRET and MERCADOPAGO_WEBHOOK_SECRET in this deployment',
    );
  }
  return application;
}

export const mercadoPagoProvider = defineProvider({
  name: 'mercadopago',
  label: MERCADOPAGO_API.label,
  credential: { kind: 'api-key' },
  connection: {
    kind: 'oauth',
    flow: mercadoPagoLink,
    fields: {
      accessToken: accessToken.describe(
        "The owner's access token, from Mercado Pago's OAuth (set by connecting, renewed by the connector).",
      ),
      refreshToken: z
        .string()
        .min(1)
        .describe('The single-use token that renews it (set by connecting).'),
      publicKey: z.string().min(1).describe("The owner's public key (set by connecting)."),
      apiUrl,
    },
    secrets: ['accessToken', 'refreshToken'],
    credential: 'oauth_access_token',
    renew: async (document, vendor, now) => {
      const grant = await refreshGrant(applicationOf(vendor), document.refreshToken, now);
      return { ...document, ...grant };
    },
  },
  fields: {
    accessToken: accessToken.describe(
      'Access token (`APP_USR-...` in production, `TEST-...` for test users) of your application.',
    ),
    webhookSecret: z
      .string()
      .min(16, 'must be at least 16 characters')
      .describe(
        "Secret signature of your application's webhooks (checks `x-signature`); at least 16 characters.",
      ),
    environment: environmentField(MERCADOPAGO_API).describe(
      'Mercado Pago has one API host: empty or `production` (test credentials select its test environment, so `sandbox` is refused).',
    ),
    apiUrl,
  },
  secrets: ['accessToken', 'webhookSecret'],
  variables: {
    accessToken: 'MERCADOPAGO_ACCESS_TOKEN',
    webhookSecret: 'MERCADOPAGO_WEBHOOK_SECRET',
    environment: 'MERCADOPAGO_ENVIRONMENT',
    apiUrl: 'MERCADOPAGO_API_URL',
  },
  api: MERCADOPAGO_API,
  offer: MERCADOPAGO_OFFER,
  settings: (document, common) => {
    const base = baseUrlOf(MERCADOPAGO_API, document);
    if (document.connection === undefined) {
      const { name, environment: _e, connection: _c, ...keys } = document;
      return { name, ...common, mercadopago: { ...keys, apiUrl: base, marketplace: false } };
    }
    const { webhookSecret } = applicationOf(common.vendor);
    const mercadopago = {
      accessToken: document.accessToken,
      webhookSecret,
      apiUrl: base,
      marketplace: true,
    };
    return { name: document.name, ...common, mercadopago };
  },
  build: (settings, environment) => ({
    provider: new MercadoPagoProvider({
      ...settings.mercadopago,
      payment: settings.payment,
      notificationUrl: `${environment.publicUrl}${webhookPath(settings.name, environment.shop)}`,
    }),
  }),
});
