import express, { type Express } from 'express';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CONNECTABLE, ConnectLinks, flowOf } from '../../src/connect/connect-links';
import { createLogger } from '../../src/infra/logger';
import { createMetrics } from '../../src/infra/metrics';
import type { Dependencies } from '../../src/main/dependencies';
import { buildApp } from '../../src/main/start-api';
import { PROVIDER_LIST } from '../../src/payments/providers';
import { configOf } from './harness';
import { declaredRoute, mountedRoutes, type MountedRoute } from './mounted-routes';
import { ROOT } from './spawn-ts';

/*
 * Every route the api role serves, and what the providers declare of them (their pages, webhook
 * suffixes, connect callbacks and forms), read from the code, never from a list kept by hand: the
 * routers of the app it composes (`buildApp`, src/main/start-api.ts, as src/main/compose.ts calls
 * it, with every optional router on), and what the generic connect route serves by the providers'
 * flows (`/connect/<provider>/<callback>`, a link's form). The dashboard (bull-board, an Express
 * app of its own behind basic auth) counts as its mount, `/admin/queues`, whatever the method.
 */

/**
 * The redirects back a connectable provider's flow serves (`/connect/<provider>/<name>`). The
 * flow answers `callback(name)` but does not list its names, and its declaration (`callbacks`,
 * in src/payments/<provider>/) is not exported: every word its folder's source writes is asked
 * of it. A callback's name is a key written in that source, so none is missed.
 */
function callbackNames(provider: string): string[] {
  const flow = flowOf(provider);
  const folder = path.join(ROOT, 'src', 'payments', provider);
  const words = new Set<string>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
    for (const [word] of readFileSync(path.join(folder, file), 'utf8').matchAll(/[\w-]+/g)) {
      words.add(word);
    }
  }
  return [...words].filter((word) => flow?.callback(word) !== undefined).sort();
}

/*
 * What the providers declare, read once. Each list is one the code fills today; fast-check takes
 * no empty choice, so a list the code empties fails the generator loudly, not silently.
 */

/** The callbacks' paths, and the providers whose link takes a form. */
export const CALLBACKS = CONNECTABLE.flatMap((name) =>
  callbackNames(name).map((callback) => `/connect/${name}/${callback}`),
);
export const LINK_FORMS = CONNECTABLE.filter((name) => flowOf(name)?.submit !== undefined);

/** The providers' own pages, as their descriptors declare their routes (`/pix/:checkoutId`). */
export const PAGE_ROUTES = PROVIDER_LIST.flatMap(
  (provider) =>
    provider.pages?.routes(() => Promise.resolve(undefined), undefined).map((r) => r.path) ?? [],
);
export const PAGE_PREFIXES = PROVIDER_LIST.flatMap((provider) => provider.pages?.paths ?? []);

/** The providers with a webhook path of their own (`/webhooks/<name>/<shop>/<suffix>`). */
export const SUFFIXED = PROVIDER_LIST.flatMap(({ name, webhookSuffix }) =>
  webhookSuffix === undefined ? [] : [{ name, webhookSuffix }],
);

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
    const config = configOf(ENV);
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
 * What the generic connect route (`/connect/:first/:second`) serves by the flows' declarations:
 * each provider's redirects back (GET `/connect/<provider>/<name>`) and its link's form (POST
 * `/connect/:token/<provider>`).
 */
function flowRoutes(): MountedRoute[] {
  return [
    ...CALLBACKS.map((route) => declaredRoute(route, ['GET'])),
    ...LINK_FORMS.map((name) => declaredRoute(`/connect/:token/${name}`, ['POST'])),
  ];
}

let routes: MountedRoute[] | undefined;

/** Every public route, each with the methods it serves and whether a path reaches it. */
export function publicRoutes(): MountedRoute[] {
  routes ??= [...mountedRoutes(composedApp()), ...flowRoutes()];
  return routes;
}
