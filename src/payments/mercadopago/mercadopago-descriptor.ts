import { z } from 'zod';
import { webhookPath } from '../../shop/shop-id';
import { defineProvider } from '../define-provider';
import { baseUrlOf, environmentField, httpUrl } from '../provider-hosts';
import { MERCADOPAGO_API, MERCADOPAGO_OFFER } from './mercadopago-api';
import { MercadoPagoProvider } from './mercadopago-provider';

/** Mercado Pago Checkout Pro: its fields, keys and hosts, what it offers, how it is built. */
export const mercadoPagoProvider = defineProvider({
  name: 'mercadopago',
  label: MERCADOPAGO_API.label,
  credential: { kind: 'api-key' },
  fields: {
    accessToken: z
      .string()
      .regex(/^(APP_USR|TEST)-[\w-]+$/, 'must be an access token (APP_USR-... or TEST-...)')
      .describe(
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
    apiUrl: httpUrl
      .optional()
      .describe(
        'Another Mercado Pago API host, allowed only when its origin is in `PROVIDER_API_ORIGINS` (a local fake for tests), refused at start (78) otherwise; empty for `https://api.mercadopago.com`.',
      ),
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
    const { name, environment: _e, ...keys } = document;
    const mercadopago = { ...keys, apiUrl: baseUrlOf(MERCADOPAGO_API, document) };
    return { name, ...common, mercadopago };
  },
  build: (settings, environment) => ({
    provider: new MercadoPagoProvider({
      ...settings.mercadopago,
      payment: settings.payment,
      notificationUrl: `${environment.publicUrl}${webhookPath(settings.name, environment.shop)}`,
    }),
  }),
});
