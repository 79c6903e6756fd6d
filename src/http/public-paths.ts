/**
 * The paths anyone on the internet reaches: the pages a customer's browser opens (the return from
 * a provider, the sandbox's checkout, a shop's connect link, a Pix charge) and the providers'
 * webhooks. Rate-limited per client (src/http/app.ts), and traced as public endpoints: a
 * `traceparent` sent to them is linked to, never joined (src/infra/tracing.ts).
 */
export const PAGE_PATHS = ['/return', '/sandbox', '/connect', '/pix'] as const;
export const WEBHOOKS_PATH = '/webhooks';
export const PUBLIC_PATHS: readonly string[] = [WEBHOOKS_PATH, ...PAGE_PATHS];
