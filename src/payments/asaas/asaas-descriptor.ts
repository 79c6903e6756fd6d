import { z } from 'zod';
import { redisCreatedCheckouts } from '../created-checkouts';
import { defineProvider } from '../define-provider';
import { baseUrlOf, environmentField, httpUrl } from '../provider-hosts';
import { ASAAS_API, ASAAS_OFFER } from './asaas-api';
import { AsaasProvider } from './asaas-provider';
import { asaasLink } from './asaas-link';

// Asaas's keys begin with $aact_ (production $aact_prod_..., sandbox $aact_hmlg_...).
const apiKey = z.string().regex(/^\$aact_\S+$/, 'must be an Asaas API key ($aact_...)');

// The authToken of the webhook as registered at Asaas, which accepts 32 to 255 characters.
const webhookToken = z
  .string()
  .regex(/^\S{32,255}$/, 'must be 32 to 255 characters without spaces, as Asaas requires');

const apiUrl = httpUrl.optional();

export const asaasProvider = defineProvider({
  name: 'asaas',
  label: ASAAS_API.label,
  credential: { kind: 'api-key' },
  connection: {
    kind: 'subaccount',
    flow: asaasLink,
    fields: {
      apiKey: apiKey.describe(
        "The subaccount's API key, from Asaas's answer to its creation (set by connecting).",
      ),
      webhookToken: webhookToken.describe(
        "The token the connector registered with the subaccount's webhook (set by connecting).",
      ),
      walletId: z.string().min(1).describe("The subaccount's wallet (set by connecting)."),
      vendorWalletId: z
        .string()
        .min(1)
        .describe("The vendor's wallet its fee is split to (set by connecting)."),
      environment: environmentField(ASAAS_API).describe("The root account's environment."),
      apiUrl: apiUrl.describe("The root account's API (`ASAAS_API_URL`), when not Asaas's own."),
    },
    secrets: ['apiKey', 'webhookToken', 'walletId'],
    credential: 'api_key',
  },
  fields: {
    apiKey: apiKey.describe(
      "API key of the Asaas account (`$aact_...`; the sandbox's and production's differ).",
    ),
    webhookToken: webhookToken.describe(
      'The authentication token of the webhook registered at Asaas (32 to 255 characters); Asaas sends it in the `asaas-access-token` header.',
    ),
    environment: environmentField(ASAAS_API).describe(
      '`production` (empty: `https://api.asaas.com/v3`) or `sandbox` (`https://api-sandbox.asaas.com/v3`, with a sandbox key).',
    ),
    apiUrl: apiUrl.describe(
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
    const base = baseUrlOf(ASAAS_API, document);
    const { name, apiKey: key, webhookToken: token } = document;
    const vendorWalletId = document.connection === undefined ? undefined : document.vendorWalletId;
    return {
      name,
      ...common,
      asaas: {
        apiKey: key,
        webhookToken: token,
        apiUrl: base,
        ...(vendorWalletId ? { vendorWalletId } : {}),
      },
    };
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
