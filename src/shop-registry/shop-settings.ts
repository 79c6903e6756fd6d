import { createHash } from 'node:crypto';
import type { PlatformAccount } from '../config';
import type { ConnectionKind } from '../payments/define-provider';
import type { PaymentDocument } from '../payments/payment-options';
import { planNeedsPage, type PlanDocument } from '../payments/payment-plan';
import { providerSettingsOf, type ProviderSettings } from '../payments/provider-fields';
import { PROVIDERS } from '../payments/providers';
import { NO_VENDOR, type VendorAccounts } from '../payments/vendor-accounts';
import { isNoFee, vendorFeeOf, type VendorFee } from '../payments/vendor-fee';
import { ENV_SHOP_ID } from '../shop/shop-id';
import type { ShopDocument } from './shop-document';

/** What one shop is served with: its platform account and its payment provider. */
export interface ShopSettings {
  id: string;
  name: string;
  storefront: Storefront;
  /** '' for none (shop/shop-id.ts `shopScope`); a job of another incarnation is dropped. */
  incarnation: string;
  /** A disabled shop takes no new checkout; what it has in flight still completes. */
  enabled: boolean;
  platform: PlatformAccount;
  provider: ProviderSettings;
  /** As its document says it (`{}`: what its provider offers). */
  payment: PaymentDocument;
  /** Its plan, when its customers pay on the connector's page (payment-plan.ts `planNeedsPage`). */
  plan?: PlanDocument;
  tokenMatches(token: string | undefined): boolean;
  /** How its provider account is connected, when by a link rather than pasted keys. */
  connection?: ShopConnection;
  /** The vendor's fee on its payments: a connected shop's, when one is taken. */
  vendorFee?: VendorFee;
  /** No checkout is started (503 SHOP_NEEDS_RECONNECT) until the owner connects again. */
  needsReconnect?: { since: string; reason: string };
}

/** A connected provider account, as the renewal and the gauges see it. */
export interface ShopConnection {
  kind: ConnectionKind;
  account: string;
  connectedAt: string;
  expiresAt?: string;
  /** Its credential's kind in the expiry gauge (`oauth_access_token`...). */
  credential: string;
  renews: boolean;
  /** A digest of its secret fields: a renewal after a 401 tells by it whether another process renewed it. */
  fingerprint: string;
}

/** The shop as its customers' pages show it: no name for the env shop without SHOP_NAME. */
export interface Storefront {
  name?: string;
  siteUrl?: string;
}

/** Where shops' settings come from: the env shop, and the registry's shops. */
export interface ShopSource {
  /** The shop's settings as they stand; the same object until they change. */
  get(id: string): ShopSettings | undefined;
  ids(): readonly string[];
  /**
   * The shop as stored now, without waiting for a poll. `stored`: the incarnation stored under
   * the id ('' for one without), undefined when no shop is; `settings` undefined too when what is
   * stored does not open here.
   */
  fresh(id: string): Promise<{ settings: ShopSettings | undefined; stored: string | undefined }>;
}

/** The one way from a document to a shop's settings, for a registry shop and the env shop alike. */
export function settingsOf(
  document: ShopDocument,
  served: Pick<ShopSettings, 'incarnation' | 'enabled' | 'tokenMatches' | 'needsReconnect'> & {
    sandboxInProduction: boolean;
    /** The vendor's accounts and fee (a connected shop needs them); none by default. */
    vendor?: VendorAccounts;
  },
): ShopSettings {
  const vendor = served.vendor ?? NO_VENDOR;
  const connection = connectionOf(document.provider);
  const fee = connection && (document.vendorFee ? vendorFeeOf(document.vendorFee) : vendor.fee);
  return {
    id: document.id,
    name: document.name,
    storefront: storefrontOf(document),
    incarnation: served.incarnation,
    enabled: served.enabled,
    platform: document.platform,
    provider: providerSettingsOf(
      document.provider,
      served.sandboxInProduction,
      document.payment,
      vendor,
    ),
    payment: document.payment ?? {},
    ...(planNeedsPage(document.plan) ? { plan: document.plan } : {}),
    tokenMatches: served.tokenMatches,
    ...(connection ? { connection } : {}),
    ...(fee && !isNoFee(fee) ? { vendorFee: fee } : {}),
    ...(served.needsReconnect ? { needsReconnect: served.needsReconnect } : {}),
  };
}

function storefrontOf(document: ShopDocument): Storefront {
  const unnamed = document.id === ENV_SHOP_ID && document.name === ENV_SHOP_ID;
  return {
    ...(unnamed ? {} : { name: document.name }),
    ...(document.siteUrl === undefined ? {} : { siteUrl: document.siteUrl }),
  };
}

/**
 * A shop's credential that expires, and when: its connected account's, else a pasted one's (an
 * API Pix client certificate). What the expiry gauge and `shops verify` both tell.
 */
export function expiringCredential(
  settings: Pick<ShopSettings, 'connection'> & {
    provider: Pick<ProviderSettings, 'credentialExpiry'>;
  },
): { kind: string; expiresAt: string } | undefined {
  const { connection } = settings;
  return connection?.expiresAt
    ? { kind: connection.credential, expiresAt: connection.expiresAt }
    : settings.provider.credentialExpiry;
}

/** The connection a provider document records, from its provider's descriptor. */
export function connectionOf(provider: ShopDocument['provider']): ShopConnection | undefined {
  const spec = PROVIDERS[provider.name].connection;
  type Connected = 'connection' | 'account' | 'connectedAt' | 'expiresAt';
  const document = provider as Partial<Record<Connected, string>>;
  if (!spec || document.connection === undefined) return undefined;
  return {
    kind: spec.kind,
    account: document.account ?? '',
    connectedAt: document.connectedAt ?? '',
    ...(document.expiresAt === undefined ? {} : { expiresAt: document.expiresAt }),
    credential: spec.credential,
    renews: spec.renew !== undefined,
    fingerprint: credentialFingerprint(provider),
  };
}

/** A digest of a connected provider document's secret fields: which credential it holds. */
export function credentialFingerprint(provider: ShopDocument['provider']): string {
  const spec = PROVIDERS[provider.name].connection;
  const values = (spec?.secrets ?? []).map(
    (field) => (provider as unknown as Record<string, unknown>)[field] ?? '',
  );
  return createHash('sha256').update(JSON.stringify(values)).digest('base64url').slice(0, 22);
}
