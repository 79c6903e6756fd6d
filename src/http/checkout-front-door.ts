import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors';
import { runWithLogContext } from '../infra/log-context';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { FORM_BODY_LIMIT_BYTES } from './middleware/body-parsers';
import { errorAnswer } from './middleware/error-responder';
import { protocolProblem } from './middleware/protocol-checks';
import { recordRequest } from './middleware/observe-requests';
import { nameRequestRoute } from '../infra/traced-requests';
import { ACCEPTABLE_REQUEST_ID } from './middleware/request-context';
import { headerToken } from './middleware/route-token';
import { SHOP_CHECKOUT_ROUTE } from '../shop/shop-id';
import type { CheckoutEntry } from './checkout-entry';
import { acceptCheckout, serviceIdFrom } from './routes/checkout-routes';

/** The whole body (its length was checked against the limit before); rejects if cut short. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client closed the request before its body ended'));
    });
  });
}

/** Either a request listener took the request, or it is Express's. */
export type FrontDoor = (req: IncomingMessage, res: ServerResponse) => boolean;

const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * The platform's hot path. Express costs a checkout call more than twice the CPU of the work
 * itself (bench/inbound-checkout.ts); this door takes the route's common, well-formed call and
 * nothing else: POST to the route's exact path with no query, the right token in a header, a
 * JSON body in UTF-8 of declared length within the limit, no content coding. It does the same
 * work as the route in Express (the same functions: token match, `serviceIdFrom`,
 * `acceptCheckout`, `errorAnswer`) with the same request id, log context, metrics and access
 * log. Every other request, including every one without the right token (so the rate limiter
 * counts it), goes on to Express, where the same route answers every case.
 */
// eslint-disable-next-line max-lines-per-function -- a factory: its lines are the door's three closures (answer, handle, the listener), each short
export function checkoutFrontDoor(options: {
  entry: CheckoutEntry;
  logger: Logger;
  metrics: Metrics;
}): FrontDoor {
  const { entry, logger, metrics } = options;
  const limit = FORM_BODY_LIMIT_BYTES;

  const answer = (
    res: ServerResponse,
    path: string,
    route: string,
    id: string,
    started: bigint,
    status: number,
    body: unknown,
    extra: Record<string, string> = {},
  ) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': id,
      ...extra,
    });
    res.end(text);
    recordRequest(logger, metrics, { method: 'POST', path, route, status, started });
  };

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    at: { id: string; started: bigint; path: string; route: string; shop: string },
  ) => {
    const { id, started, path, route } = at;
    nameRequestRoute(req, route);
    try {
      // The shop as it is stored now: a token revoked or a shop removed a moment ago is refused.
      const deps = await entry.open(at.shop, headerToken(req.headers));
      const text = (await readBody(req)).toString('utf8');
      // As express.json: an empty body is no body (service_id is then missing), not bad JSON.
      let body: unknown = {};
      try {
        if (text !== '') body = JSON.parse(text);
      } catch {
        throw new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
      }
      // As express.json's strict mode: an object or an array, nothing else.
      if (typeof body !== 'object' || body === null) {
        throw new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
      }
      const serviceId = serviceIdFrom((body as Record<string, unknown>).service_id, undefined);
      answer(res, path, route, id, started, 202, await acceptCheckout(deps, serviceId));
    } catch (error) {
      // The client went away: no one to answer.
      if (res.headersSent || res.destroyed) return;
      const failed = errorAnswer(error, logger, { method: 'POST', path, id });
      answer(
        res,
        path,
        route,
        id,
        started,
        failed.status,
        failed.body,
        failed.retryAfterSeconds === undefined
          ? {}
          : { 'retry-after': String(failed.retryAfterSeconds) },
      );
    }
  };

  return (req, res) => {
    if (req.method !== 'POST' || req.url === undefined) return false;
    const path = req.url;
    const shop = entry.shopOfPath(path);
    if (shop === undefined) return false;
    const { headers } = req;
    const type = headers['content-type'];
    const length = headers['content-length'];
    if (
      type === undefined ||
      !JSON_TYPE.test(type) ||
      (headers['content-encoding'] !== undefined && headers['content-encoding'] !== 'identity') ||
      headers['transfer-encoding'] !== undefined ||
      length === undefined ||
      !/^\d{1,9}$/.test(length) ||
      Number(length) > limit ||
      protocolProblem(req) !== undefined
    ) {
      return false;
    }
    // A wrong token, an unknown or disabled shop as this process last saw it: Express answers it
    // (and the rate limiter counts it). Whatever the door takes, it checks again as stored now.
    if (!entry.opens(shop, headerToken(headers))) return false;
    const route = path === entry.envPath ? path : SHOP_CHECKOUT_ROUTE;
    const started = process.hrtime.bigint();
    const given = headers['x-request-id'];
    const id =
      typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
    runWithLogContext(
      { requestId: id, shop },
      () => void handle(req, res, { id, started, path, route, shop }),
    );
    return true;
  };
}
