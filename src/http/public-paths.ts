import { PROVIDER_LIST } from '../payments/providers';

/**
 * The paths anyone on the internet reaches: the pages a customer's browser opens (the return from
 * a provider, the sandbox's checkout, a shop's connect link, a Pix charge) and the providers'
 * webhooks. Rate-limited per client (src/http/app.ts). Tracing needs no list of them: a request
 * joins its caller's trace only once authenticated (src/http/authenticated-callers.ts), so these,
 * like every path no credentials open, start a trace of their own.
 */
export const PAGE_PATHS: readonly string[] = [
  '/return',
  '/connect',
  // The connector's own payment page (a shop with a plan).
  '/pay',
  // Each provider's own pages (its descriptor's `pages`): the sandbox's, the API Pix's.
  ...PROVIDER_LIST.flatMap((provider) => provider.pages?.paths ?? []),
];
export const WEBHOOKS_PATH = '/webhooks';
/** The operators' queue dashboard: behind basic auth, and rate-limited per client too. */
export const DASHBOARD_PATH = '/admin/queues';
