import type { VendorFee } from './vendor-fee';

/**
 * The ERP vendor's own provider accounts, with which it connects its shops' accounts without
 * pasted keys (CONTRACT "Connecting a shop's provider account"), and its fee on their payments.
 * From the deployment's variables (src/config/connect-config.ts); a provider absent here cannot
 * be connected in this deployment, and a shop connected through it is not served.
 */
export interface VendorAccounts {
  mercadopago?: {
    /** MERCADOPAGO_CLIENT_ID and MERCADOPAGO_CLIENT_SECRET: the vendor's application. */
    clientId: string;
    clientSecret: string;
    /** MERCADOPAGO_AUTH_URL: where the owner authorizes the application. */
    authUrl: string;
    /** MERCADOPAGO_API_URL, or Mercado Pago's own API: where `/oauth/token` is. */
    apiUrl: string;
    /** MERCADOPAGO_WEBHOOK_SECRET: the application's notifications are signed with it. */
    webhookSecret: string;
  };
  asaas?: {
    /** ASAAS_ROOT_API_KEY: the vendor's Asaas account, which creates the shops' subaccounts. */
    rootApiKey: string;
    /** ASAAS_VENDOR_WALLET_ID: where the fee goes; read from the root account when unset. */
    walletId?: string;
    /** ASAAS_API_URL, or ASAAS_ENVIRONMENT's host: the root's API, and its subaccounts'. */
    apiUrl: string;
  };
  stripe?: {
    /** STRIPE_CONNECT_SECRET_KEY: the vendor's Stripe platform account. */
    secretKey: string;
    /** STRIPE_CONNECT_WEBHOOK_SECRET: its Connect webhook endpoint's signing secret. */
    webhookSecret: string;
    /** STRIPE_API_URL, or Stripe's own API. */
    apiUrl: string;
  };
  /** VENDOR_FEE_PERCENT and VENDOR_FEE_FIXED: the fee unless a shop's document says its own. */
  fee: VendorFee;
  /** CREDENTIAL_RENEW_BEFORE: how long before its expiry a token is renewed (ms). */
  renewBeforeMs: number;
}

/** A deployment that connects no account and takes no fee (tests, the CLI). */
export const NO_VENDOR: VendorAccounts = {
  fee: { percentHundredths: 0, fixedMinor: 0 },
  renewBeforeMs: 30 * 86_400_000,
};
