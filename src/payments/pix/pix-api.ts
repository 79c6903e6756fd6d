import { createHash } from 'node:crypto';
import { MAX_EXPIRY_MINUTES, type ProviderOffer } from '../payment-offer';
import type { ProviderApi } from '../provider-api';
import { withoutTrailingSlashes } from '../provider-hosts';
import type { PixEnvironment, PixProfile } from './pix-profile';
import { PIX_PROFILES } from './pix-profiles';

const PROFILE_HOSTS = Object.values(PIX_PROFILES).flatMap((profile) =>
  [profile.production, profile.sandbox].flatMap((environment) =>
    environment ? [environment.api, environment.token] : [],
  ),
);

/**
 * The API Pix's official hosts, for the check of a shop's `apiUrl` (PROVIDER_API_ORIGINS): those
 * of every profile. A `generic` PSP's host is the deployment's to list in PROVIDER_API_ORIGINS.
 */
export const PIX_API: ProviderApi = {
  label: 'API Pix',
  production: PIX_PROFILES.efi.production?.api ?? 'https://pix.api.efipay.com.br/v2',
  alsoOfficial: PROFILE_HOSTS,
};

export const PIX_OFFER: ProviderOffer = {
  methods: ['pix'],
  maxInstallments: 1,
  maxExpiryMinutes: MAX_EXPIRY_MINUTES,
  // A Pix's devolução (PUT /pix/{e2eid}/devolucao/{id}).
  refunds: ['pix'],
  why: {
    methods: 'the API Pix takes Pix only',
    installments: 'a Pix is paid at once',
  },
};

/**
 * The charge's `txid` of a checkout: 35 letters and digits (the specification allows 26 to 35),
 * the same for the same checkout, so that making its charge again finds it.
 */
export function txidOf(checkoutId: string): string {
  return `chk${createHash('sha256').update(checkoutId).digest('hex').slice(0, 32)}`;
}

/** Whether a txid is one `txidOf` makes (a charge of the connector's). */
export function isTxid(txid: string): boolean {
  return /^chk[0-9a-f]{32}$/.test(txid);
}

/** A value of the API (`"530.35"`) in centavos; NaN for a value that is not one. */
export function centavosOf(valor: string): number {
  return /^\d{1,10}\.\d{2}$/.test(valor) ? Number(valor.replace('.', '')) : Number.NaN;
}

export function valorOf(centavos: number): string {
  return (centavos / 100).toFixed(2);
}

/**
 * Where a shop's charges are made and its tokens asked for: its document's `apiUrl` (a proxy, a
 * fake, a `generic` PSP), with the token at the profile's path on that origin, or the token URL
 * the document gives; else the profile's hosts in the environment.
 */
export function pixEndpoints(
  profile: PixProfile,
  document: { environment?: 'production' | 'sandbox'; apiUrl?: string; tokenUrl?: string },
): PixEnvironment | undefined {
  if (document.apiUrl !== undefined) {
    const token = document.tokenUrl ?? new URL(profile.tokenPath, document.apiUrl).toString();
    return { api: withoutTrailingSlashes(document.apiUrl), token };
  }
  const hosts = document.environment === 'sandbox' ? profile.sandbox : profile.production;
  if (!hosts) return undefined;
  return { api: hosts.api, token: document.tokenUrl ?? hosts.token };
}
