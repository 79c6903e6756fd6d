import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express, { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { exactRouter } from '../exact-routes';
import { AppError } from '../../errors';
import { allowOnly } from '../allow-only';
import type { ConnectLinks } from '../../connect/connect-links';
import type { ShopAdmin } from '../../shop-registry/shop-admin';
import { secretMatcher } from '../../secrets/token-match';
import { isShopId } from '../../shop/shop-id';
import { hasBody } from '../middleware/body-parsers';
import { bearerToken } from '../middleware/route-token';

export const ADMIN_API_PATH = '/admin/api';

/** A shop document is small; 64 kB is far above any. */
const ADMIN_BODY_LIMIT = '64kb';

const rotationSchema = z.strictObject({ revoke_previous: z.boolean().optional() });

/**
 * A verb's body checked by `schema` (none is `{}`); VALIDATION_FAILED naming each problem, and
 * each unknown field as not a field of `what`.
 */
function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_FAILED', `The ${what} is not valid.`, {
    details: parsed.error.issues.map((issue) => ({
      field:
        issue.path.join('.') ||
        (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '(body)'),
      problem: issue.code === 'unrecognized_keys' ? `is not a field of a ${what}` : issue.message,
    })),
  });
}

const connectSchema = z.strictObject({
  provider: z.string().min(1).max(40),
  /** Asaas: the subaccount's data, created at once instead of a link. */
  account: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Whether a request carries the admin token: for the rate limiter (a right one never counts) and
 * for tracing (only then does a request join its caller's trace), as `authorize` checks it.
 */
export function adminTokenMatcher(
  token: string,
): (req: Pick<IncomingMessage, 'headers'>) => boolean {
  const matches = secretMatcher(token);
  return (req) => matches(bearerToken(req.headers));
}

const SHOPS_PATH = `${ADMIN_API_PATH}/shops`;

const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  next();
};

const jsonBody: RequestHandler[] = [
  (req, _res, next) => {
    if (hasBody(req) && !req.is('application/json')) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the shop document as application/json.');
    }
    next();
  },
  express.json({ limit: ADMIN_BODY_LIMIT }),
];

function shopId(req: Request): string {
  const id = req.params.shop;
  if (!isShopId(id)) throw new AppError('SHOP_NOT_FOUND', `No shop ${String(id)} in the registry.`);
  return id;
}

/**
 * The admin API (CONTRACT "Shops"): the registry's verbs for the ERP vendor's systems, behind
 * `Authorization: Bearer $ADMIN_TOKEN` (compared in constant time; wrong ones are rate limited).
 * No answer carries a secret, except the route token that `POST /shops` and `rotate-token` make,
 * once. The audit trail names the caller by the token's fingerprint.
 */
export function adminRoutes(
  admin: ShopAdmin,
  options: { token: string; rateLimit?: RequestHandler; links?: ConnectLinks },
): Router {
  const router = exactRouter();
  const authenticated = adminTokenMatcher(options.token);
  const actor = `admin:${createHash('sha256').update(options.token).digest('hex').slice(0, 8)}`;
  const authorize: RequestHandler = (req, _res, next) => {
    if (!authenticated(req)) {
      throw new AppError(
        'UNAUTHORIZED',
        'The admin API needs Authorization: Bearer <ADMIN_TOKEN>.',
      );
    }
    next();
  };
  const limit = options.rateLimit ? [options.rateLimit] : [];
  router.use(ADMIN_API_PATH, noStore, ...limit, authorize);
  shopRoutes(router, admin, actor);
  shopVerbRoutes(router, admin, actor, options.links);
  return router;
}

function answer(of: (req: Request) => Promise<unknown>): RequestHandler {
  return async (req, res) => {
    res.json(await of(req));
  };
}

function shopRoutes(router: Router, admin: ShopAdmin, actor: string): void {
  router
    .route(SHOPS_PATH)
    .get(answer(async () => ({ shops: await admin.list() })))
    .post(...jsonBody, async (req, res) => {
      const added = await admin.add(req.body, actor);
      res.status(201).location(`${SHOPS_PATH}/${added.shop.id}`).json(added);
    })
    .all(allowOnly('GET', 'POST'));
  router
    .route(`${SHOPS_PATH}/:shop`)
    .get(answer((req) => admin.show(shopId(req))))
    .patch(
      jsonBody,
      answer((req) => admin.update(shopId(req), req.body, actor)),
    )
    .delete(async (req, res) => {
      await admin.remove(shopId(req), actor);
      res.status(204).end();
    })
    .all(allowOnly('GET', 'PATCH', 'DELETE'));
}

function shopVerbRoutes(router: Router, admin: ShopAdmin, actor: string, links?: ConnectLinks) {
  const rotation = (body: unknown) => parseBody(rotationSchema, body, 'rotation').revoke_previous;
  const rotate = (req: Request) =>
    admin.rotateToken(shopId(req), actor, { revokePrevious: rotation(req.body) });
  const posts: Array<[string, ...RequestHandler[]]> = [
    ['disable', answer((req) => admin.setEnabled(shopId(req), false, actor))],
    ['enable', answer((req) => admin.setEnabled(shopId(req), true, actor))],
    ['rotate-token', ...jsonBody, answer(rotate)],
    ['connect', ...jsonBody, connectHandler(admin, actor, links)],
    ['verify', answer((req) => admin.verify(shopId(req)))],
  ];
  for (const [verb, ...handlers] of posts) {
    router.route(`${SHOPS_PATH}/:shop/${verb}`).post(handlers).all(allowOnly('POST'));
  }
  const audit = async (req: Request) => ({
    shop: shopId(req),
    entries: await admin.auditTrail(shopId(req)),
  });
  router.route(`${SHOPS_PATH}/:shop/audit`).get(answer(audit)).all(allowOnly('GET'));
}

/** A link to connect the shop's provider account; or, with the account's data, the account. */
function connectHandler(admin: ShopAdmin, actor: string, links?: ConnectLinks): RequestHandler {
  return async (req, res) => {
    const shop = shopId(req);
    const { provider, account } = parseBody(connectSchema, req.body, 'connect request');
    if (!links) throw new AppError('CONNECT_NOT_CONFIGURED', 'No provider can be connected here.');
    if (account !== undefined) {
      // The account made at once from the body, for a provider whose link asks a form.
      await links.connectNow(shop, provider, account, actor);
      res.status(201).json(await admin.show(shop));
      return;
    }
    res.status(201).json(await links.create(shop, provider, actor));
  };
}
