import type { Express } from 'express';
import { exactRouter } from '../../src/http/exact-routes';

/*
 * The routes of a composed Express 5 app, read from its routers (`router.stack`: each layer, its
 * `route` or the router it mounts), each with a test of whether a request path reaches it that
 * runs Express's own matchers, mount by mount, as the router does.
 */

/** A path matcher of Express's router: what a path holds for the layer, or false. */
type Matcher = (path: string) => false | { path: string };

/** What this file reads of Express's router layers (router/lib/layer.js, route.js). */
interface Layer {
  handle: unknown;
  /** One per path of the layer (a route may have several: `router.route([a, b])`). */
  matchers: Matcher[];
  rawPath: string | string[];
  route?: { methods: Record<string, boolean | undefined> };
  match(path: string): false | { path: string };
}

/** One route as mounted: its full path, the methods it serves, whether a path reaches it. */
export interface MountedRoute {
  path: string;
  /** Upper case; `*` for an app mounted whole (its own routes are not listed). */
  methods: string[];
  reaches(path: string): boolean;
}

/** Every route of `app`, through the routers it mounts; apps it mounts are one entry each. */
export function mountedRoutes(app: Express): MountedRoute[] {
  return routesOf(app.router.stack as unknown as Layer[], [], '');
}

function routesOf(stack: Layer[], mounts: Layer[], prefix: string): MountedRoute[] {
  return stack.flatMap((layer): MountedRoute[] => {
    if (layer.route) return routeEntries(layer, mounts, prefix);
    const mountPath =
      typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    const inner = (layer.handle as { stack?: unknown }).stack;
    if (Array.isArray(inner)) {
      return routesOf(inner as Layer[], [...mounts, layer], prefix + mountPath);
    }
    // An app of its own (bull-board's dashboard): its mount, whatever the method.
    if ((layer.handle as { router?: unknown }).router !== undefined) {
      const within = [...mounts, layer];
      return [
        {
          path: prefix + mountPath,
          methods: ['*'],
          reaches: (path) => reachedThrough(within, path) !== undefined,
        },
      ];
    }
    return [];
  });
}

function routeEntries(layer: Layer, mounts: Layer[], prefix: string): MountedRoute[] {
  const paths = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath];
  const methods = Object.keys(layer.route?.methods ?? {})
    .filter((method) => method !== '_all')
    .map((method) => method.toUpperCase());
  return paths.map((path, i) => ({
    path: prefix + path,
    methods,
    reaches: (requested) => {
      const rest = reachedThrough(mounts, requested);
      const matcher = layer.matchers[i];
      return rest !== undefined && matcher !== undefined && matched(matcher, rest) !== false;
    },
  }));
}

/** What is left of `path` (query aside) for the layers under `mounts`, if each mount takes it. */
function reachedThrough(mounts: Layer[], path: string): string | undefined {
  let rest = path.split('?')[0] ?? '';
  for (const mount of mounts) {
    const match = matched((p) => mount.match(p), rest);
    if (match === false) return undefined;
    rest = rest.slice(match.path.length) || '/';
    if (!rest.startsWith('/')) rest = `/${rest}`;
  }
  return rest;
}

/** A matcher's answer; a path whose parameters do not decode reaches no route (a 400). */
function matched(matcher: Matcher, path: string): false | { path: string } {
  try {
    return matcher(path);
  } catch {
    return false;
  }
}

/**
 * A route that a generic one serves for what a declaration names (`/connect/mercadopago/callback`
 * under `/connect/:first/:second`), matched as the connector's exact routers match `path`.
 */
export function declaredRoute(path: string, methods: string[]): MountedRoute {
  const probe = exactRouter();
  probe.route(path);
  const [layer] = probe.stack as unknown as Layer[];
  if (!layer) throw new Error(`no layer for ${path}`);
  return {
    path,
    methods,
    reaches: (requested) => routeEntries(layer, [], '')[0]?.reaches(requested) ?? false,
  };
}
