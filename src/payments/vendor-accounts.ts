import type { VendorFee } from './vendor-fee';

/**
 * The ERP vendor's own provider accounts, with which it connects its shops' accounts without
 * pasted keys (CONTRACT "Connecting a shop's provider account"), and its fee on their payments.
 * Each account is its provider's, as its connect flow declares it (the flow's `vendor`: the
 * variables that set it) and reads it (`accountOf`); a provider absent here cannot be connected
 * in this deployment, and a shop connected through it is not served.
 */
export interface VendorAccounts {
  /** By provider: the account its flow's `vendor.from` made of the deployment's variables. */
  accounts: Readonly<Record<string, unknown>>;
  /** VENDOR_FEE_PERCENT and VENDOR_FEE_FIXED: the fee unless a shop's document says its own. */
  fee: VendorFee;
  /** CREDENTIAL_RENEW_BEFORE: how long before its expiry a token is renewed (ms). */
  renewBeforeMs: number;
}

/** A deployment that connects no account and takes no fee (tests, the CLI). */
export const NO_VENDOR: VendorAccounts = {
  accounts: {},
  fee: { percentHundredths: 0, fixedMinor: 0 },
  renewBeforeMs: 30 * 86_400_000,
};
