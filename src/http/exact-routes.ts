import { Router, type Express } from 'express';

/*
 * Paths are exact (CONTRACT "The trust boundary of a shop"): `/ADMIN/api/shops` or `/checkout/`
 * is the 404 of any unknown path, never a route reached by another spelling.
 */

export function exactRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}

/** Called before an app's first route (Express builds its router then). */
export function exactRouting<T extends Pick<Express, 'set'>>(app: T): T {
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  return app;
}
