import type { Request, Response } from 'express';

/*
 * The customer's and the owner's forms that lead to a provider (a connect link's button, a
 * payment page's choice): only their own page posts them, and their answer, a redirect to the
 * provider's page, must pass the page's form-action.
 */

/**
 * Whether a POST came from another site's page: a browser that says where a request comes from
 * (`Sec-Fetch-Site`, sent whatever the page's referrer policy) is believed; one that does not is
 * judged by its `Origin`, which a page with Referrer-Policy same-origin sends in full. The
 * deployment's own origin is `publicOrigin` (PUBLIC_URL's, behind a proxy) or the request's host.
 */
export function postedFromAnotherSite(req: Request, publicOrigin: string | undefined): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site !== 'same-origin';
  const origin = req.get('origin');
  if (origin === undefined) return false;
  return origin !== publicOrigin && origin !== `${req.protocol}://${req.get('host') ?? ''}`;
}

/**
 * The page's form-action widened to the provider's pages its form's redirect leads to: any https
 * origin, and `origins` (a provider's own, a loopback fake's).
 */
export function widenFormAction(res: Response, origins: readonly string[]): void {
  const csp = res.getHeader('content-security-policy');
  if (typeof csp !== 'string') return;
  const widened = csp.replace(
    "form-action 'self'",
    `form-action 'self' https: ${origins.join(' ')}`,
  );
  res.setHeader('content-security-policy', widened.trimEnd());
}
