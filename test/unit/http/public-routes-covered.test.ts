import fc from 'fast-check';
import { hostileRequestLine, type RequestLine } from '../../support/inbound-paths';
import type { MountedRoute } from '../../support/mounted-routes';
import { CONNECTOR_NAMES, inboundWorld } from '../../support/property-connectors';
import { rightFormValue } from '../../support/provider-endpoint-paths';
import { publicRoutes } from '../../support/public-routes';

/*
 * The property test (test/properties/inbound.property.test.ts) reaches every route the server
 * mounts: the routes are read from the code (test/support/public-routes.ts: the routers of the
 * app the api role composes, and what the providers' connect flows declare under the generic
 * connect route), not from a list kept by hand. A route added to a router, a provider's pages or
 * a flow, and not reached by the generator, fails here.
 */

/** The requests the property's generator makes, on every connector, as many as the test needs. */
function generatedLines(): RequestLine[] {
  const tokens = fc.sample(rightFormValue, { numRuns: 3, seed: 1 });
  return CONNECTOR_NAMES.flatMap((name) =>
    fc.sample(hostileRequestLine(inboundWorld(name, tokens)), { numRuns: 4000, seed: 43 }),
  );
}

/** Whether `line` is a request the route serves: one of its methods, to a path it takes. */
function serves(route: MountedRoute, line: RequestLine): boolean {
  const method = route.methods.includes('*') || route.methods.includes(line.method);
  return method && route.reaches(line.path);
}

describe('the property test reaches every route the server mounts', () => {
  const routes = publicRoutes();
  const lines = generatedLines();

  it("finds the routers' and the flows' routes, the public URLs among them (CONTRACT)", () => {
    // A floor that shows the reading works (no route found would cover nothing), not the list
    // the generator is held to: that is every route found.
    const paths = routes.map((route) => route.path);
    const publicUrls = [
      '/checkout',
      '/shops/:shop/checkout',
      '/connect/:token',
      '/connect/:token/start',
      '/connect/:token/asaas',
      '/connect/mercadopago/callback',
      '/connect/stripe/return',
      '/connect/stripe/refresh',
      '/webhooks/stripe-connect',
      '/webhooks/:provider/:shop',
      '/webhooks/pix/:shop/pix',
      '/pix/:checkoutId',
      '/admin/api/shops/:shop/connect',
      '/admin/queues',
    ];
    expect(publicUrls.filter((url) => !paths.includes(url))).toEqual([]);
  });

  it('generates, for each route and each method it serves, a request that reaches it', () => {
    const missed = routes.flatMap((route) =>
      route.methods
        .filter((method) => !lines.some((line) => serves({ ...route, methods: [method] }, line)))
        .map((method) => `${method} ${route.path}`),
    );
    expect(missed).toEqual([]);
  });
});
