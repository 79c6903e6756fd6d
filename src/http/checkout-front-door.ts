import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors';
import { runWithLogContext } from '../tracing/log-context';
import type { Logger } from '../infra/logger';
import type { Metrics } from '../infra/metrics';
import { FORM_BODY_LIMIT_BYTES } from './middleware/body-parsers';
import { errorAnswer, type ErrorAnswer } from './middleware/error-responder';
import { protocolProblem } from './middleware/protocol-checks';
import { recordRequest } from './middleware/observe-requests';
import { nameRequestRoute } from '../tracing/traced-requests';
import { ACCEPTABLE_REQUEST_ID } from './middleware/request-context';
import { headerToken } from './middleware/route-token';
import { SHOP_CHECKOUT_ROUTE } from '../shop/shop-id';
import type { CheckoutEntry, CheckoutShop } from './checkout-entry';
import { acceptCheckout, serviceIdFrom } from './routes/checkout-routes';

/** Either a request listener took the request, or it is Express's. */
export type FrontDoor = (req: IncomingMessage, res: ServerResponse) => boolean;

type Answer = Omit<ErrorAnswer, 'body'> & { body: unknown };

interface Door {
  entry: CheckoutEntry;
  logger: Logger;
  metrics: Metrics;
}

interface Call {
  id: string;
  started: bigint;
  path: string;
  route: string;
  shop: string;
  /** The shop's settings the token opened at the door (CheckoutEntry.open takes them). */
  opened: CheckoutShop['settings'];
}

const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

function plainJson(req: IncomingMessage): boolean {
  const { headers } = req;
  const type = headers['content-type'];
  const length = headers['content-length'];
  const coding = headers['content-encoding'];
  return (
    type !== undefined &&
    JSON_TYPE.test(type) &&
    (coding === undefined || coding === 'identity') &&
    headers['transfer-encoding'] === undefined &&
    length !== undefined &&
    /^\d{1,9}$/.test(length) &&
    Number(length) <= FORM_BODY_LIMIT_BYTES &&
    protocolProblem(req) === undefined
  );
}

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

/** As express.json in strict mode: an empty body is no body, else an object or an array. */
function parseJson(text: string): Record<string, unknown> {
  if (text === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null) {
    throw new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
  }
  return body as Record<string, unknown>;
}

function answer(door: Door, res: ServerResponse, call: Call, out: Answer) {
  const { status, body, retryAfterSeconds: retry } = out;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-request-id': call.id,
    ...(retry === undefined ? {} : { 'retry-after': String(retry) }),
  });
  res.end(text);
  const { path, route, started } = call;
  recordRequest(door.logger, door.metrics, { method: 'POST', path, route, status, started });
}

async function handle(door: Door, req: IncomingMessage, res: ServerResponse, call: Call) {
  nameRequestRoute(req, call.route);
  try {
    // The shop as it is stored now: a token revoked or a shop removed a moment ago is refused.
    const deps = await door.entry.open(call.shop, headerToken(req.headers), call.opened);
    const body = parseJson((await readBody(req)).toString('utf8'));
    const serviceId = serviceIdFrom(body.service_id, undefined);
    answer(door, res, call, { status: 202, body: await acceptCheckout(deps, serviceId) });
  } catch (error) {
    // The client went away: no one to answer.
    if (res.headersSent || res.destroyed) return;
    answer(door, res, call, errorAnswer(error, door.logger, { ...call, method: 'POST' }));
  }
}

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
export function checkoutFrontDoor(door: Door): FrontDoor {
  const { entry } = door;
  return (req, res) => {
    const path = req.url;
    if (req.method !== 'POST' || path === undefined) return false;
    const shop = entry.shopOfPath(path);
    // Judged on the shop as this process last saw it; `handle` checks again as stored now.
    if (shop === undefined || !plainJson(req)) return false;
    const opened = entry.opens(shop, headerToken(req.headers));
    if (!opened) return false;
    const route = path === entry.envPath ? path : SHOP_CHECKOUT_ROUTE;
    const started = process.hrtime.bigint();
    const given = req.headers['x-request-id'];
    const id =
      typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
    const call = { id, started, path, route, shop, opened };
    runWithLogContext({ requestId: id, shop }, () => void handle(door, req, res, call));
    return true;
  };
}
