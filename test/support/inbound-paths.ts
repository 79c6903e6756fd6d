import fc from 'fast-check';
import {
  hostileBody,
  hostileContentType,
  hostileEncoding,
  hostileId,
  hostileMethod,
  readable,
  type InboundRequest,
} from './inbound-requests';
import { shapedBodies, shapedBodyFor } from './provider-endpoint-bodies';
import {
  checkoutId,
  connectPath,
  pixPath,
  shopSegment,
  webhookPath,
  type InboundWorld,
} from './provider-endpoint-paths';

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

/** The customer pages of the sandbox and the return from any provider. */
function customerPagePath(world: InboundWorld): fc.Arbitrary<string> {
  const id = checkoutId(world);
  return fc.oneof(
    fc
      .tuple(fc.constantFrom('sandbox', 'stripe', 'mercadopago', 'asaas', 'pix'), id, fc.boolean())
      .map(
        ([p, checkout, cancelled]) =>
          `/return/${p}?checkout_id=${checkout}${cancelled ? '&cancelled=1' : ''}`,
      ),
    id.map((checkout) => `/sandbox/checkout/${checkout}`),
    fc
      .tuple(
        id,
        fc.constantFrom('pay', 'pix', 'boleto', 'decline', 'refund', 'chargeback', 'late-pay'),
      )
      .map(([checkout, action]) => `/sandbox/checkout/${checkout}/${action}`),
  );
}

/** Where a request may go, on a connector of `world`: every route it has, and some it has not. */
export function hostilePath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(
    checkoutPath(world),
    webhookPath(world),
    customerPagePath(world),
    { weight: 2, arbitrary: connectPath(world) },
    pixPath(world),
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

/** The methods the routes of `path` serve (GET for pages and what is not listed here). */
const SERVED: ReadonlyArray<[RegExp, readonly string[]]> = [
  [/^\/admin\/api\/shops$/, ['GET', 'POST']],
  [/^\/admin\/api\/shops\/[^/]+$/, ['GET', 'PATCH', 'DELETE']],
  [/^\/admin\/api\/shops\/[^/]+\/audit$/, ['GET']],
  [/^\/admin\/api\/shops\/[^/]+\/[^/]+$/, ['POST']],
  [/^\/connect\/[^/]+\/[^/]+$/, ['GET', 'POST']],
  [/^\/(webhooks\/|checkout|shops\/|sandbox\/checkout\/[^/]+\/)/, ['POST']],
];

function servedMethods(path: string): readonly string[] {
  const [route = ''] = path.split('?');
  return SERVED.find(([form]) => form.test(route))?.[1] ?? ['GET'];
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

/**
 * A whole request to a connector of `world` (to one of `paths`), with `auth`'s credentials: its
 * line as `hostileRequestLine` draws it, any type, encoding and body; a body of the shape a
 * handler reads (provider-endpoint-bodies.ts) half the time its path reads one.
 */
export function hostileRequest(
  world: InboundWorld,
  auth: fc.Arbitrary<Record<string, string>>,
  paths?: fc.Arbitrary<string>,
): fc.Arbitrary<InboundRequest> {
  return fc
    .record({
      line: hostileRequestLine(world, paths),
      auth,
      type: hostileContentType,
      encoding: hostileEncoding,
      body: hostileBody,
      shaped: shapedBodies(world),
      shapedAsIs: fc.boolean(),
    })
    .map((drawn): InboundRequest => {
      const { method, path } = drawn.line;
      const shaped = drawn.shapedAsIs ? shapedBodyFor(path, drawn.shaped) : undefined;
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
