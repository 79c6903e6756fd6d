import type { JoinsCallerTrace } from '../tracing/traced-requests';
import type { CheckoutEntry } from './checkout-entry';
import { presentedTokenOf } from './middleware/route-token';
import { ADMIN_API_PATH, adminTokenMatcher } from './routes/admin-routes';

/** Whether `path` is `prefix` or under it. */
const under = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path[prefix.length] === '/');

/**
 * The callers whose `traceparent` a request joins (CONTRACT "Traces carry no secret and follow no
 * stranger"): those whose credentials open what they ask, judged by the matchers their routes
 * authenticate with. The platform on a shop's checkout route (its token, as `CheckoutEntry` opens
 * it for the front door and the rate limiter), the ERP vendor's systems on the admin API
 * (ADMIN_TOKEN, as `authorize` checks it). No one else: a customer's browser, a provider's
 * webhook, the dashboard's operator, a refused or an unknown request each start a trace of their
 * own (src/tracing/traced-requests.ts). A new authenticated API joins by a line here.
 */
export function authenticatedCallers(options: {
  entry: CheckoutEntry;
  adminToken?: string | undefined;
}): JoinsCallerTrace {
  const { entry } = options;
  const admin = options.adminToken ? adminTokenMatcher(options.adminToken) : undefined;
  return (req, path) => {
    const shop = entry.shopOfPath(path);
    if (shop !== undefined) return entry.opens(shop, presentedTokenOf(req)) !== undefined;
    return admin !== undefined && under(path, ADMIN_API_PATH) && admin(req);
  };
}
