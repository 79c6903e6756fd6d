import { timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { SimulatorState } from './simulator-state';

/** A DreamFactory-style error answer, as the real platform sends them [seen]. */
export function platformError(res: Response, status: number, message: string): void {
  res.status(status).json({ error: { code: status, status_code: status, message, context: null } });
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Basic auth plus `x-dreamfactory-api-key`, both required [doc]. The platform hands out an
 * account per shop: any account the simulator holds is accepted, and the call is recorded as
 * that account's (`res.locals.account`, its email).
 */
function requireAuth(state: SimulatorState): RequestHandler {
  const basicOf = (email: string, password: string) =>
    `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
  return (req, res, next) => {
    const apiKey = req.get('x-dreamfactory-api-key');
    const account = apiKey
      ? state.accounts().find((known) => sameSecret(apiKey, known.apiKey))
      : undefined;
    if (!account) {
      return platformError(res, 401, 'No session token (JWT) or API Key detected in request.');
    }
    if (!sameSecret(req.get('authorization') ?? '', basicOf(account.email, account.password))) {
      return platformError(res, 401, 'Invalid credentials supplied.');
    }
    res.locals.account = account.email;
    next();
  };
}

const listQuery = z.looseObject({
  limit: z.coerce.number().int().min(1).optional(),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.coerce.number().int().optional(),
  internal_code: z.string().optional(),
});

const serviceIdBody = z.number().int().positive();
const paymentBodies = {
  'checkout-url': z.object({
    service_id: serviceIdBody,
    checkout_url: z.url({ protocol: /^https?$/ }),
  }),
  'finish-checkout': z.object({
    service_id: serviceIdBody,
    transaction_id: z.string().min(1).max(255),
  }),
  'cancel-checkout': z.object({ service_id: serviceIdBody, reason: z.string().max(1000) }),
} as const;

type PaymentKind = keyof typeof paymentBodies;

/** The platform's API as docs/platform.md describes it. */
export function platformRoutes(state: SimulatorState): Router {
  const router = Router();
  router.use(requireAuth(state));
  router.get('/services', (req, res) => {
    const query = listQuery.safeParse(req.query);
    if (!query.success) return platformError(res, 400, 'Invalid limit, offset or status.');
    res.json(servicePage(state, query.data));
  });
  router.get('/services/:id', (req, res) => {
    const service = state.service(Number(req.params.id));
    if (!service) return platformError(res, 404, 'Record not found.');
    res.json(service);
  });
  router.put('/services/:id', (req, res) => {
    const id = Number(req.params.id);
    if (!state.exists(id)) return platformError(res, 404, 'Record not found.');
    const body = z.object({ internal_code: z.string().min(1).max(64) }).safeParse(req.body);
    if (!body.success)
      return platformError(res, 400, 'Field internal_code is required and must be a string.');
    state.override(id, { internal_code: body.data.internal_code });
    res.json(state.listItem(id));
  });
  for (const endpoint of Object.keys(paymentBodies) as PaymentKind[])
    router.post(`/payment/${endpoint}`, paymentCall(state, endpoint));
  return router;
}

/** The page of services a list query asks, as the platform pages them. */
function servicePage(state: SimulatorState, query: z.output<typeof listQuery>) {
  const { offset, status, internal_code: internalCode } = query;
  const limit = Math.min(query.limit ?? state.defaultPageSize, state.maxPageSize);
  const matching = state
    .serviceIds()
    .filter(
      (id) =>
        (status === undefined || state.statusCode(id) === status) &&
        (internalCode === undefined || state.internalCode(id) === internalCode),
    );
  const next = offset + limit < matching.length ? offset + limit : null;
  return {
    resource: matching.slice(offset, offset + limit).map((id) => state.listItem(id)),
    meta: { count: matching.length, next },
  };
}

/** A payment call: recorded as it came, then answered as the platform does. */
function paymentCall(state: SimulatorState, endpoint: PaymentKind): RequestHandler {
  return (req, res) => {
    const body = paymentBodies[endpoint].safeParse(req.body);
    const serviceId = body.success ? body.data.service_id : undefined;
    const status = !body.success ? 400 : state.exists(body.data.service_id) ? 200 : 404;
    state.recordPayment({
      endpoint,
      serviceId,
      body: req.body as unknown,
      idempotencyKey: req.get('idempotency-key'),
      // A connector with tracing on sends its trace (W3C Trace Context).
      traceparent: req.get('traceparent'),
      status,
      account: res.locals.account as string,
    });
    if (status === 400) return platformError(res, 400, `Invalid body for /payment/${endpoint}.`);
    if (status === 404) return platformError(res, 404, 'Record not found.');
    if (endpoint === 'finish-checkout' && serviceId !== undefined) state.setStatus(serviceId, 6);
    res.json({ success: true });
  };
}
