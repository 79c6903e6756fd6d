import { Router, type Express } from 'express';

/*
 * Paths are exact (CONTRACT "The trust boundary of a shop"): routing is case-sensitive and
 * strict, so `/ADMIN/api/shops` or `/checkout/` is the 404 of any unknown path, never a route
 * reached by another spelling. Every app and router of the connector is made here.
 */

/** A Router whose paths are exact: case-sensitive, and a trailing slash makes another path. */
export function exactRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}

/** Makes an app's own routing exact; called before its first route (Express builds it then). */
export function exactRouting<T extends Pick<Express, 'set'>>(app: T): T {
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  return app;
}
