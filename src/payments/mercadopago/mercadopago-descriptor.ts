import { z } from 'zod';
import { webhookPath } from '../../shops/shop-id';
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
      .regex(/^(APP_USR|TEST)-[\w-]+$/, 'must be an access token (APP_USR-... or TEST-...)'),
    webhookSecret: z.string().min(16, 'must be at least 16 characters'),
    environment: environmentField(MERCADOPAGO_API),
    apiUrl: httpUrl.optional(),
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
    startWarnings: [],
  }),
});
