import { z } from 'zod';
import type { ApiEnvironment, ProviderApi } from './provider-api';

/**
 * Which hosts a provider may be sent to (CONTRACT "The trust boundary of a shop"): its official
 * ones and PROVIDER_API_ORIGINS, origins compared exactly after URL parsing, never by prefix.
 */

export function officialOrigins(api: ProviderApi): string[] {
  const urls = [api.production, ...(api.sandbox ? [api.sandbox] : []), ...(api.alsoOfficial ?? [])];
  return urls.map((url) => new URL(url).origin);
}

/** An http(s) URL: a provider's `apiUrl` before its host is checked (`apiUrlProblem`). */
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** A base URL, as a path is appended to it: without its trailing slashes. */
export function withoutTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

export function baseUrlOf(
  api: ProviderApi,
  document: { environment?: ApiEnvironment; apiUrl?: string },
): string {
  return document.apiUrl ?? apiBaseUrl(api, document.environment);
}

export function apiBaseUrl(api: ProviderApi, environment: ApiEnvironment = 'production'): string {
  return environment === 'sandbox' && api.sandbox ? api.sandbox : api.production;
}

function originOf(entry: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  const bare =
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    !url.username &&
    !url.password &&
    url.pathname === '/' &&
    !url.search &&
    !url.hash;
  return bare ? url.origin : undefined;
}

/** PROVIDER_API_ORIGINS (comma-separated origins) read: the origins, and a problem per bad entry. */
export function parseApiOrigins(text: string): { origins: string[]; problems: string[] } {
  const origins: string[] = [];
  const problems: string[] = [];
  for (const entry of text.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const origin = originOf(entry);
    if (origin) origins.push(origin);
    else
      problems.push(
        `"${entry.slice(0, 100)}" is not an origin: give scheme, host and port only, such as https://payments-proxy.example.com:8443`,
      );
  }
  return { origins, problems };
}

/**
 * What is wrong with a provider's `apiUrl` in this deployment, or undefined when its origin is
 * one of the provider's official hosts or listed in PROVIDER_API_ORIGINS (`listed`).
 */
export function apiUrlProblem(
  api: ProviderApi,
  apiUrl: string,
  listed: readonly string[],
): string | undefined {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return 'must be an http(s) URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username || url.password) return 'must not carry credentials';
  const official = officialOrigins(api);
  if (official.includes(url.origin) || listed.includes(url.origin)) return undefined;
  return `is not ${api.label}'s API (${official.join(', ')}), and its origin is not in PROVIDER_API_ORIGINS`;
}

/**
 * What a connected account's document keeps of the API it was connected through: nothing for
 * one of the provider's official hosts, else its `apiUrl` (a PROVIDER_API_ORIGINS host).
 */
export function apiUrlUnlessOfficial(api: ProviderApi, apiUrl: string): { apiUrl?: string } {
  return officialOrigins(api).includes(new URL(apiUrl).origin) ? {} : { apiUrl };
}

/**
 * Which of the provider's official hosts (production by default); a provider without a sandbox
 * host refuses `sandbox`, saying how it tests instead. Another host is `apiUrl`, allowed by
 * PROVIDER_API_ORIGINS (`apiUrlProblem`).
 */
export function environmentField(api: ProviderApi) {
  return z
    .enum(['production', 'sandbox'], { error: 'must be production or sandbox' })
    .refine((environment) => environment === 'production' || api.sandbox !== undefined, {
      message: `${api.noSandbox ?? `${api.label} has no sandbox host`}; use production`,
    })
    .optional();
}
