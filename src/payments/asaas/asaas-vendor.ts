import { z } from 'zod';
import type { VendorSpec } from '../connect-flow';
import { apiBaseUrl, withoutTrailingSlashes } from '../provider-hosts';
import { ASAAS_API } from './asaas-api';

/** The vendor's own Asaas account, which creates the shops' subaccounts. */
export interface AsaasRoot {
  /** ASAAS_ROOT_API_KEY: the vendor's Asaas account. */
  rootApiKey: string;
  /** ASAAS_VENDOR_WALLET_ID: where the fee goes; read from the root account when unset. */
  walletId?: string;
  /** ASAAS_API_URL, or ASAAS_ENVIRONMENT's host: the root's API, and its subaccounts'. */
  apiUrl: string;
}

const variables = {
  ASAAS_ROOT_API_KEY: z
    .string()
    .regex(/^\$aact_\S+$/, 'must be an Asaas API key ($aact_...)')
    .optional()
    .describe(
      `API key of your own Asaas account: with it, each shop's connect link creates the shop's Asaas subaccount (docs/shops.md "Connecting a shop's provider account"). Its environment is \`ASAAS_ENVIRONMENT\`'s (or \`ASAAS_API_URL\`).`,
    ),
  ASAAS_VENDOR_WALLET_ID: z
    .uuid('must be an Asaas walletId (a UUID)')
    .optional()
    .describe(
      "The Asaas wallet your fee is paid into (`splits`); unset: your root account's own, read when a shop connects.",
    ),
};

/** The vendor's root account from the deployment's variables (its host: the env shop's). */
export const asaasVendor: VendorSpec<AsaasRoot, typeof variables> = {
  variables,
  secrets: ['ASAAS_ROOT_API_KEY'],
  reads: ['apiUrl', 'environment'],
  required: ['ASAAS_ROOT_API_KEY'],
  from(env) {
    if (!env.ASAAS_ROOT_API_KEY) return undefined;
    const apiUrl =
      typeof env.ASAAS_API_URL === 'string' && env.ASAAS_API_URL !== ''
        ? env.ASAAS_API_URL
        : apiBaseUrl(ASAAS_API, env.ASAAS_ENVIRONMENT === 'sandbox' ? 'sandbox' : 'production');
    return {
      rootApiKey: env.ASAAS_ROOT_API_KEY,
      ...(env.ASAAS_VENDOR_WALLET_ID ? { walletId: env.ASAAS_VENDOR_WALLET_ID } : {}),
      apiUrl: withoutTrailingSlashes(apiUrl),
    };
  },
  problems: () => [],
};
