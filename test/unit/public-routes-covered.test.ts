import express, { type Express } from 'express';
import fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { CONNECTABLE, ConnectLinks, flowOf } from '../../src/connect/connect-links';
import { createLogger } from '../../src/infra/logger';
import { createMetrics } from '../../src/infra/metrics';
import type { Dependencies } from '../../src/main/dependencies';
import { buildApp } from '../../src/main/start-api';
import { hostileRequestLine, type RequestLine } from '../support/inbound-paths';
import { declaredRoute, mountedRoutes, type MountedRoute } from '../support/mounted-routes';
import { CONNECTOR_NAMES, inboundWorld } from '../support/property-connectors';
import { rightFormValue } from '../support/provider-endpoint-paths';

/*
 * The property test (test/properties/inbound.property.test.ts) reaches every route the server
 * mounts: the routes are read from the routers of the app the api role composes (`buildApp`,
 * src/main/start-api.ts, as src/main/compose.ts calls it, with every optional router on), and
 * from the providers' connect flows for what a generic route serves by their declaration
 * (`/connect/<provider>/<callback>`, a link's form): not from a list kept by hand. A route added
 * to a router or a flow, and not to the generator, fails here. The dashboard (bull-board, an
 * Express app of its own behind basic auth, which the property's requests never pass) counts as
 * its mount, `/admin/queues`, whatever the method.
 */

/** Every variable that mounts a router: the admin API, the dashboard, the registry. */
const ENV = {
  PLATFORM_BASE_URL: 'https://apis.example.com/',
  PLATFORM_EMAIL: 'erp@example.com',
  PLATFORM_PASSWORD: 'pw-123456',
  PLATFORM_API_KEY: 'key-abcdef',
  CHECKOUT_ROUTE_TOKEN: 'a-token-of-16-chars-or-more',
  ADMIN_TOKEN: 'an-admin-token-of-32-characters-or-more',
  DASHBOARD_USER: 'ops',
  DASHBOARD_PASSWORD: 'a-dashboard-password',
  SHOP_SECRET_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

/**
 * The api role's app as the server composes it. Its collaborators are stand-ins: building the
 * app wires routers and calls none of them (a request would). The app itself is the one
 * `express()` made and the connector's routers were mounted on (`buildApp` answers only its
 * listener), seen by watching `use` on Express's application prototype, which every app copies.
 */
function composedApp(): Express {
  const use = jest.spyOn(express.application, 'use');
  try {
    const config = loadConfig(ENV, mkdtempSync(path.join(tmpdir(), 'connector-routes-')));
    const built = {
      directory: {},
      registry: {},
      admin: {},
      // The links' routes are the flows' declarations, which the class reads without its deps.
      links: Object.create(ConnectLinks.prototype) as ConnectLinks,
      queues: [],
    } as unknown as Dependencies;
    const logger = createLogger({ level: 'error', format: 'json', secrets: [] });
    buildApp(config, built, {
      redis: {} as never,
      logger,
      metrics: createMetrics(),
      publicUrl: 'http://127.0.0.1:8080',
    });
    const apps = new Set(use.mock.contexts as Express[]);
    // The connector's app mounts the others (bull-board's); none mounts it.
    const mounted = new Set([...apps].flatMap((app) => handlesOf(app)));
    const roots = [...apps].filter((app) => !mounted.has(app));
    if (roots.length !== 1) throw new Error(`expected one app at the root, saw ${roots.length}`);
    return roots[0] as Express;
  } finally {
    use.mockRestore();
  }
}

/** Every handle an app's routers mount, at any depth. */
function handlesOf(app: Express): unknown[] {
  const walk = (stack: Array<{ handle: unknown }>): unknown[] =>
    stack.flatMap(({ handle }) => {
      const inner = (handle as { stack?: unknown }).stack;
      return [handle, ...(Array.isArray(inner) ? walk(inner as Array<{ handle: unknown }>) : [])];
    });
  return walk(app.router.stack as Array<{ handle: unknown }>);
}

/**
 * The redirects back a connectable provider's flow serves. The flow the connector calls
 * (`DeclaredFlow`) answers `callback(name)` but does not list its names, and its declaration
 * (`callbacks`, in src/payments/<provider>/) is not exported: every word the provider's folder
 * writes is asked of it. A callback's name is a key written in that source, so none is missed.
 */
function callbackNames(provider: string): string[] {
  const flow = flowOf(provider);
  const folder = path.join(__dirname, '..', '..', 'src', 'payments', provider);
  const words = new Set<string>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
    for (const [word] of readFileSync(path.join(folder, file), 'utf8').matchAll(/[\w-]+/g)) {
      words.add(word);
    }
  }
  return [...words].filter((word) => flow?.callback(word) !== undefined).sort();
}

/**
 * What the generic connect route (`/connect/:first/:second`) serves by the flows' declarations:
 * each provider's redirects back (GET `/connect/<provider>/<name>`) and its link's form (POST
 * `/connect/:token/<provider>`).
 */
function flowRoutes(): MountedRoute[] {
  return CONNECTABLE.flatMap((provider) => [
    ...callbackNames(provider).map((name) =>
      declaredRoute(`/connect/${provider}/${name}`, ['GET']),
    ),
    ...(flowOf(provider)?.submit ? [declaredRoute(`/connect/:token/${provider}`, ['POST'])] : []),
  ]);
}

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
  const routes = [...mountedRoutes(composedApp()), ...flowRoutes()];
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
