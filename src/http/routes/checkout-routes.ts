import { Router, type Request, type RequestHandler } from 'express';
import { exactRouter } from '../exact-routes';
import { z } from 'zod';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { requestCheckout } from '../../checkout/request-checkout';
import { AppError } from '../../errors';
import { allowOnly } from '../allow-only';
import { hasBody, jsonOrFormBody } from '../middleware/body-parsers';
import { SERVICE_ID_RULE, SERVICE_ID_TEXT, serviceIdSchema } from '../../shop/service-id';
import { SHOP_CHECKOUT_ROUTE } from '../../shop/shop-id';
import type { CheckoutEntry } from '../checkout-entry';
import { presentedToken } from '../middleware/route-token';

/** A service id as JSON, a form or the query give it: a number, or its digits as text. */
const serviceIdValue = z.union([
  serviceIdSchema,
  z.string().trim().regex(SERVICE_ID_TEXT).transform(Number).pipe(serviceIdSchema),
]);

/** A request without `service_id`: malformed, as any request missing a required field. */
function missingServiceId(): AppError {
  return new AppError('VALIDATION_FAILED', 'service_id is missing.', {
    details: [{ field: 'service_id', problem: 'is required (JSON body, form body or query)' }],
  });
}

/** A `service_id` given that is no service id of the range (CONTRACT: 400 INVALID_SERVICE_ID). */
function invalidServiceId(problem: string): AppError {
  return new AppError('INVALID_SERVICE_ID', `service_id must be ${SERVICE_ID_RULE}.`, {
    details: [{ field: 'service_id', problem }],
  });
}

/** An answer to a server, about one moment of one order: never cached, never sniffed. */
const apiAnswerHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  next();
};

/** A body the route cannot read (text, XML...): 415, rather than a missing `service_id`. */
const refuseUnreadableBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is(['application/json', 'application/x-www-form-urlencoded'])) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send service_id as JSON or a form (application/json, application/x-www-form-urlencoded), or in the query.',
    );
  }
  next();
};

function readServiceId(req: Request): number {
  return serviceIdFrom(
    (req.body as Record<string, unknown> | undefined)?.service_id,
    req.query.service_id,
  );
}

/**
 * `service_id` as the body and the query give it (either may be absent, not both): one of the
 * range, or VALIDATION_FAILED when missing and INVALID_SERVICE_ID when it is no service id.
 */
export function serviceIdFrom(fromBody: unknown, fromQuery: unknown): number {
  const given = fromBody ?? fromQuery;
  if (given === undefined) throw missingServiceId();
  const parsed = serviceIdValue.safeParse(given);
  if (!parsed.success) throw invalidServiceId(`must be ${SERVICE_ID_RULE}`);
  if (
    fromBody !== undefined &&
    fromQuery !== undefined &&
    String(fromQuery).trim() !== String(fromBody).trim()
  ) {
    throw invalidServiceId('the body and the query disagree');
  }
  return parsed.data;
}

/** The route's work once `service_id` is known: the 202 body, or CHECKOUT_ALREADY_PAID. */
export async function acceptCheckout(
  deps: CheckoutDeps,
  serviceId: number,
): Promise<{ service_id: number; checkout_id: string; status: 'accepted' }> {
  const result = await requestCheckout(deps, serviceId);
  if (result.kind === 'already_paid') {
    throw new AppError('CHECKOUT_ALREADY_PAID', `Service ${serviceId} was already paid.`, {
      details: [{ field: 'service_id', problem: `checkout ${result.checkout.checkoutId} is paid` }],
    });
  }
  return { service_id: serviceId, checkout_id: result.checkoutId, status: 'accepted' };
}

/**
 * The checkout routes the platform calls: the env shop's CHECKOUT_ROUTE_PATH and each registry
 * shop's `/shops/<shop>/checkout`. They answer 202 at once; the URL follows by POST. The shop and
 * its token are checked (by `CheckoutEntry`, as in the front door), and the type, before a byte of
 * the body is read.
 */
export function checkoutRoutes(
  entry: CheckoutEntry,
  route: { rateLimit?: RequestHandler },
): Router {
  const router = exactRouter();
  const paths = [...(entry.envPath ? [entry.envPath] : []), SHOP_CHECKOUT_ROUTE];
  for (const path of paths) {
    router
      .route(path)
      .all(apiAnswerHeaders)
      .post(
        ...(route.rateLimit ? [route.rateLimit] : []),
        async (req, res, next) => {
          res.locals.deps = await entry.open(entry.shopOfPath(req.path), presentedToken(req));
          next();
        },
        refuseUnreadableBody,
        ...jsonOrFormBody(),
        async (req, res) => {
          const deps = res.locals.deps as CheckoutDeps;
          res.status(202).json(await acceptCheckout(deps, readServiceId(req)));
        },
      )
      .all(allowOnly('POST'));
  }
  return router;
}
