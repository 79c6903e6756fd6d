import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../errors';
import { providerHttp, type ProviderCall } from '../provider-http';
import type { AsaasRoot } from './asaas-vendor';
import { ASAAS_API } from './asaas-api';
import type { SubaccountData } from './subaccount-owner';

/**
 * Asaas subaccounts ("contas filhas", docs.asaas.com "Criar subconta"): the vendor's root
 * account creates the shop's account with `POST /v3/accounts`, which answers the new account's
 * `apiKey` (once) and `walletId`; the subaccount's webhook is registered with its own key
 * (`POST /v3/webhooks`); the vendor's fee is a split of each payment to the vendor's wallet.
 */

type Root = AsaasRoot;

// The owner's data, checked before the root key is used: its own file, named here for importers.
export { subaccountSchema, type SubaccountData } from './subaccount-owner';

export interface AsaasSubaccount {
  account: string;
  apiKey: string;
  walletId: string;
}

/** The events the connector learns a checkout's outcome from (docs/payment-providers.md). */
export const ASAAS_EVENTS = [
  'CHECKOUT_PAID',
  'CHECKOUT_CANCELED',
  'CHECKOUT_EXPIRED',
  'PAYMENT_CREATED',
  'PAYMENT_CONFIRMED',
  'PAYMENT_RECEIVED',
  'PAYMENT_OVERDUE',
  'PAYMENT_REFUNDED',
  'PAYMENT_CHARGEBACK_REQUESTED',
  'PAYMENT_CHARGEBACK_DISPUTE',
] as const;

function asaasMessage(body: unknown): string | undefined {
  const errors = (body as { errors?: Array<{ description?: unknown }> } | null)?.errors;
  const text = Array.isArray(errors)
    ? errors.map((error) => error.description).filter((d) => typeof d === 'string')
    : [];
  return text.length > 0 ? text.join('; ') : undefined;
}

function callWith(apiUrl: string, apiKey: string): ProviderCall {
  return providerHttp({
    label: ASAAS_API.label,
    baseURL: apiUrl,
    timeoutMs: 30_000,
    headers: { access_token: apiKey, 'user-agent': 'checkout-connector' },
    messageOf: asaasMessage,
  });
}

/**
 * Creates the shop's subaccount with the vendor's root key. A refusal of the owner's data
 * (Asaas's 400) is VALIDATION_FAILED with Asaas's descriptions, for the form to show.
 */
export async function createSubaccount(root: Root, data: SubaccountData): Promise<AsaasSubaccount> {
  try {
    const created = await callWith(root.apiUrl, root.rootApiKey)(
      'create the subaccount',
      { method: 'POST', url: '/accounts', data },
      z.looseObject({
        id: z.string().min(1),
        apiKey: z.string().min(1),
        walletId: z.string().min(1),
      }),
    );
    return { account: created.id, apiKey: created.apiKey, walletId: created.walletId };
  } catch (error) {
    if (error instanceof AppError && error.upstreamStatus === 400) {
      throw new AppError('VALIDATION_FAILED', 'Asaas refused the account data.', {
        details: [{ field: 'account', problem: String(error.cause ?? 'refused by Asaas') }],
      });
    }
    throw error;
  }
}

/** The vendor's wallet: ASAAS_VENDOR_WALLET_ID, or the root account's own (`GET /v3/wallets`). */
export async function vendorWallet(root: Root): Promise<string> {
  if (root.walletId) return root.walletId;
  const wallets = await callWith(root.apiUrl, root.rootApiKey)(
    "read the vendor's wallet",
    { method: 'GET', url: '/wallets' },
    z.looseObject({ data: z.array(z.looseObject({ id: z.string().min(1) })).min(1) }),
  );
  return wallets.data[0]?.id ?? '';
}

/** A webhook token Asaas takes: 48 characters, no spaces (it asks 32 to 255). */
export function newWebhookToken(): string {
  return randomBytes(36).toString('base64url');
}

export async function registerWebhook(
  apiUrl: string,
  apiKey: string,
  webhook: { url: string; authToken: string; email: string },
): Promise<void> {
  await callWith(apiUrl, apiKey)(
    'register the webhook',
    {
      method: 'POST',
      url: '/webhooks',
      data: {
        name: 'checkout-connector',
        url: webhook.url,
        email: webhook.email,
        enabled: true,
        interrupted: false,
        apiVersion: 3,
        authToken: webhook.authToken,
        sendType: 'SEQUENTIALLY',
        events: ASAAS_EVENTS,
      },
    },
    z.looseObject({ id: z.string().optional() }),
  );
}
