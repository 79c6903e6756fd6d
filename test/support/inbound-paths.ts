import fc from 'fast-check';
import { PROVIDER_LIST, PROVIDER_NAMES } from '../../src/payments/providers';
import {
  hostileBody,
  hostileContentType,
  hostileEncoding,
  hostileId,
  hostileMethod,
  readable,
  type InboundRequest,
} from './inbound-requests';
import type { ShapedBody } from './provider-endpoint-bodies';
import {
  checkoutId,
  connectPath,
  providerPagePath,
  routePath,
  shopSegment,
  webhookPath,
  type InboundWorld,
} from './provider-endpoint-paths';
import { TEST_PROVIDER_LIST } from './providers';
import { publicRoutes } from './public-routes';

/*
 * Where a hostile request goes, on any connector: every route the server mounts (the unit test
 * public-routes-covered.test.ts holds this generator to the routers themselves), other spellings
 * of them, and paths no route has.
 */

/** The admin API's routes (CONTRACT "Shops"), other spellings of them, and unknown shops. */
export function hostileAdminPath(shop: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '/admin/api/shops',
      '/admin/api/shops/',
      '/admin/api',
      '/ADMIN/API/SHOPS',
      `/admin/api/shops/${shop}/`,
      `/Admin/api/shops/${shop}`,
    ),
    fc
      .tuple(
        fc.oneof(fc.constant(shop), fc.constant('default'), hostileId),
        fc.constantFrom(
          '',
          '/disable',
          '/enable',
          '/rotate-token',
          '/connect',
          '/verify',
          '/audit',
          '/DISABLE',
        ),
      )
      .map(([id, verb]) => `/admin/api/shops/${id}${verb}`),
  );
}

/** The checkout routes: the env shop's and the registry shops', with hostile queries. */
function checkoutPath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant('/checkout'),
    fc
      .tuple(
        fc.constantFrom('/checkout?service_id=', '/checkout?token=wrong&service_id='),
        hostileId,
      )
      .map(([p, id]) => p + id),
    shopSegment(world).map((shop) => `/shops/${shop}/checkout`),
  );
}

/** The return from any provider, and the providers' own pages. */
function customerPagePath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(
    fc
      .tuple(fc.constantFrom(...PROVIDER_NAMES), checkoutId(world), fc.boolean())
      .map(
        ([p, checkout, cancelled]) =>
          `/return/${p}?checkout_id=${checkout}${cancelled ? '&cancelled=1' : ''}`,
      ),
    { weight: 2, arbitrary: providerPagePath(world) },
  );
}

/**
 * Any route the app mounts (public-routes.ts), its parameters drawn by their names: a route that
 * none of the generators above knows yet is reached too, with values of the right forms.
 */
function mountedRoutePath(world: InboundWorld): fc.Arbitrary<string> {
  const routes = [...new Set(publicRoutes().map((route) => route.path))];
  return fc.oneof(...routes.map((route) => routePath(route, world)));
}

/** Where a request may go, on a connector of `world`: every route it has, and some it has not. */
export function hostilePath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(
    checkoutPath(world),
    webhookPath(world),
    customerPagePath(world),
    { weight: 2, arbitrary: connectPath(world) },
    mountedRoutePath(world),
    fc.constantFrom(
      '/admin/queues',
      '/admin/queues/api/queues',
      '/admin/queues/api/queues/notifications/add',
      '/admin/queues/api/queues/notifications/retry/failed',
      '/admin/queues/api/queues/notifications/clean/completed',
      '/admin/queues/api/queues/notifications/finish-x/update-data',
      '/admin/queues/api/queues/notifications/obliterate',
      '/healthz',
      '/readyz',
      '/metrics',
      '/favicon.ico',
    ),
    hostileAdminPath(world.shops[0] ?? 'default'),
    hostileId.map((id) => `/${id}`),
  );
}

/**
 * The methods the routes that reach `path` serve (public-routes.ts: the routers' own); GET for a
 * path no route reaches, and for an app mounted whole (the dashboard).
 */
function servedMethods(path: string): readonly string[] {
  const methods = publicRoutes()
    .filter((route) => route.reaches(path))
    .flatMap((route) => route.methods.filter((method) => method !== '*'));
  return methods.length > 0 ? [...new Set(methods)] : ['GET'];
}

/** A method and a path, as a request's first line has them. */
export interface RequestLine {
  method: string;
  path: string;
}

/** Where a request goes (one of `paths`), and with which method: half the time the one served. */
export function hostileRequestLine(
  world: InboundWorld,
  paths: fc.Arbitrary<string> = hostilePath(world),
): fc.Arbitrary<RequestLine> {
  return fc
    .record({ method: hostileMethod, asServed: fc.boolean(), pick: fc.nat(), path: paths })
    .map(({ method, asServed, pick, path }) => {
      const served = servedMethods(path);
      return { method: asServed ? (served[pick % served.length] ?? method) : method, path };
    });
}

/** An endpoint of a provider's own whose handler reads a body of a shape, and that shape. */
interface ShapedEndpoint {
  form: RegExp;
  body: fc.Arbitrary<ShapedBody>;
}

/**
 * The endpoints the test registry's rows shape a body for: a provider's own webhook path, its
 * link's form, its platform's events (each row's `inbound`, at the path the code declares).
 */
function shapedEndpoints(world: InboundWorld): ShapedEndpoint[] {
  return TEST_PROVIDER_LIST.flatMap(({ name, inbound }) => {
    const suffix = PROVIDER_LIST.find((provider) => provider.name === name)?.webhookSuffix;
    const { webhookBody, linkForm, connectEvent } = inbound;
    return [
      ...(webhookBody && suffix
        ? [{ form: new RegExp(`^/webhooks/${name}/[^/]+/${suffix}$`), body: webhookBody(world) }]
        : []),
      ...(linkForm ? [{ form: new RegExp(`^/connect/[^/]+/${name}$`), body: linkForm }] : []),
      ...(connectEvent
        ? [{ form: new RegExp(`^/webhooks/${name}-connect$`), body: connectEvent }]
        : []),
    ];
  });
}

/**
 * A whole request to a connector of `world` (to one of `paths`), with `auth`'s credentials: its
 * line as `hostileRequestLine` draws it, any type, encoding and body; a body of the shape a
 * handler reads (the registry's `inbound` shapes) half the time its path reads one.
 */
export function hostileRequest(
  world: InboundWorld,
  auth: fc.Arbitrary<Record<string, string>>,
  paths?: fc.Arbitrary<string>,
): fc.Arbitrary<InboundRequest> {
  const endpoints = shapedEndpoints(world);
  return fc
    .record({
      line: hostileRequestLine(world, paths),
      auth,
      type: hostileContentType,
      encoding: hostileEncoding,
      body: hostileBody,
      shaped: fc.tuple(...endpoints.map((endpoint) => endpoint.body)),
      shapedAsIs: fc.boolean(),
    })
    .map((drawn): InboundRequest => {
      const { method, path } = drawn.line;
      const at = endpoints.findIndex((endpoint) => endpoint.form.test(path));
      const shaped = drawn.shapedAsIs && at >= 0 ? drawn.shaped[at] : undefined;
      const type = shaped ? shaped.type : drawn.type;
      return readable({
        method,
        path,
        headers: {
          ...drawn.auth,
          ...shaped?.headers,
          ...(type ? { 'content-type': type } : {}),
          ...(drawn.encoding && !shaped ? { 'content-encoding': drawn.encoding } : {}),
        },
        body:
          method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : (shaped?.body ?? drawn.body),
      });
    });
}
