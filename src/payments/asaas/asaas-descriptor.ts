import { z } from 'zod';
import { redisCreatedCheckouts } from '../created-checkouts';
import { defineProvider } from '../define-provider';
import { baseUrlOf, environmentField, httpUrl } from '../provider-hosts';
import { ASAAS_API, ASAAS_OFFER } from './asaas-api';
import { AsaasProvider } from './asaas-provider';

/** Asaas Checkout: its fields, keys and hosts, what it offers, and how its adapter is built. */
export const asaasProvider = defineProvider({
  name: 'asaas',
  label: ASAAS_API.label,
  credential: { kind: 'api-key' },
  fields: {
    // Asaas's keys begin with $aact_ (production $aact_prod_..., sandbox $aact_hmlg_...).
    apiKey: z
      .string()
      .regex(/^\$aact_\S+$/, 'must be an Asaas API key ($aact_...)')
      .describe(
        "API key of the Asaas account (`$aact_...`; the sandbox's and production's differ).",
      ),
    // The authToken of the webhook as registered at Asaas, which accepts 32 to 255 characters.
    webhookToken: z
      .string()
      .regex(/^\S{32,255}$/, 'must be 32 to 255 characters without spaces, as Asaas requires')
      .describe(
        'The authentication token of the webhook registered at Asaas (32 to 255 characters); Asaas sends it in the `asaas-access-token` header.',
      ),
    environment: environmentField(ASAAS_API).describe(
      '`production` (empty: `https://api.asaas.com/v3`) or `sandbox` (`https://api-sandbox.asaas.com/v3`, with a sandbox key).',
    ),
    apiUrl: httpUrl
      .optional()
      .describe(
        "The API with its `/v3`: Asaas's own (`https://api.asaas.com/v3`, `https://api-sandbox.asaas.com/v3`) or one whose origin is in `PROVIDER_API_ORIGINS` (a local fake for tests), else refused at start (78); empty for `ASAAS_ENVIRONMENT`'s host.",
      ),
  },
  secrets: ['apiKey', 'webhookToken'],
  variables: {
    apiKey: 'ASAAS_API_KEY',
    webhookToken: 'ASAAS_WEBHOOK_TOKEN',
    environment: 'ASAAS_ENVIRONMENT',
    apiUrl: 'ASAAS_API_URL',
  },
  api: ASAAS_API,
  offer: ASAAS_OFFER,
  settings: (document, common) => {
    const { name, environment: _e, ...keys } = document;
    return { name, ...common, asaas: { ...keys, apiUrl: baseUrlOf(ASAAS_API, document) } };
  },
  // Asaas takes no idempotency key: the checkouts made are kept, so making one again finds it.
  build: (settings, environment) => ({
    provider: new AsaasProvider({
      ...settings.asaas,
      payment: settings.payment,
      created: redisCreatedCheckouts(
        environment.redis,
        environment.prefix,
        environment.scope,
        settings.name,
      ),
    }),
  }),
});
