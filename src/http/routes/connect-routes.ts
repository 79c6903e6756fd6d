import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { AppError, errorMessage } from '../../errors';
import { allowOnly } from '../allow-only';
import { postedFromAnotherSite, widenFormAction } from '../same-site';
import { exactRouter } from '../exact-routes';
import type { Logger } from '../../infra/logger';
import { flowOf, LINK_TTL_MS, type ConnectLinks } from '../../connect/connect-links';
import { isRandomValue, randomValue } from '../../connect/connect-states';
import {
  connectFormPage,
  connectOutcomePage,
  connectPendingPage,
  connectedPage,
  connectPage,
  type ConnectOutcome,
} from '../pages/connect-pages';

/**
 * The cookie that binds a connection under way to the browser that pressed the link's button
 * (CONTRACT "Bound to the browser"): a random nonce, whose hash the state keeps.
 */
function cookieName(links: ConnectLinks): string {
  return links.secure ? '__Host-connector-connect' : 'connector-connect';
}

function browserOf(req: Request, links: ConnectLinks): string | undefined {
  const name = cookieName(links);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      if (isRandomValue(value)) return value;
    }
  }
  return undefined;
}

function bindBrowser(res: Response, links: ConnectLinks, nonce: string): void {
  res.cookie(cookieName(links), nonce, {
    httpOnly: true,
    sameSite: 'lax',
    secure: links.secure,
    path: '/',
    maxAge: LINK_TTL_MS,
  });
}

function refuseAnotherSite(res: Response, logger: Logger): void {
  logger.warn("a connect link's button was pressed from another site's page; refused");
  sendOutcome(res, 403, 'elsewhere');
}

function queryValue(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 2048 ? value : undefined;
}

function sendOutcome(res: Response, status: number, outcome: ConnectOutcome): void {
  res.status(status).type('html').send(connectOutcomePage(outcome));
}

/** The pages' answer to a failure: 404 for a link that is no more, 502 when the provider failed. */
function failed(res: Response, error: unknown, logger: Logger): void {
  const code = error instanceof AppError ? error.code : undefined;
  if (code === 'CONNECT_LINK_INVALID') return sendOutcome(res, 404, 'linkNotFound');
  if (code === 'CONNECT_OTHER_BROWSER') {
    logger.warn('a connect callback came to another browser; nothing changed');
    return sendOutcome(res, 400, 'otherBrowser');
  }
  if (code === 'RATE_LIMITED') {
    logger.warn('a connect link was refused by its provider too often; held for an hour');
    res.setHeader('retry-after', '3600');
    return sendOutcome(res, 429, 'tooMany');
  }
  if (error instanceof AppError && code === 'VALIDATION_FAILED') {
    const { message, details } = error;
    logger.warn('a shop cannot be connected as it stands', { error: message, details });
    return sendOutcome(res, 409, 'blocked');
  }
  logger.warn('a connection could not be completed', { error: errorMessage(error), code });
  // The provider refused what it was handed (a code forged, used or lapsed): the request's
  // fault, 400; the provider unreachable or failing, 502. The page is the same.
  const refused = error instanceof AppError && code === 'PROVIDER_REJECTED';
  sendOutcome(res, refused && error.upstreamStatus === 400 ? 400 : 502, 'failed');
}

interface Connect {
  links: ConnectLinks;
  logger: Logger;
}

type PageHandler = (req: Request, res: Response, next: NextFunction, c: Connect) => Promise<void>;

/** A handler whose failure is answered as a page (`failed`), never as JSON. */
function asPage(connect: Connect, handler: PageHandler): RequestHandler {
  return (req, res, next) =>
    handler(req, res, next, connect).catch((error) => failed(res, error, connect.logger));
}

/** A link's token from the path: of its form, or CONNECT_LINK_INVALID before any lookup. */
function linkToken(value: unknown): string {
  const token = String(value);
  if (!isRandomValue(token)) throw new AppError('CONNECT_LINK_INVALID', 'no link');
  return token;
}

/** What `/connect/:first/:second` is: a callback (GET), a flow's form (POST), or neither. */
function connectPathKind(req: Request): 'callback' | 'form' | undefined {
  const { first = '', second = '' } = req.params as Record<string, string>;
  if (flowOf(first)?.callback(second)) return 'callback';
  return flowOf(second)?.submit ? 'form' : undefined;
}

/** `handler` when the path is of `kind`; any other goes on (to a 405, or to no route). */
function onlyFor(kind: 'callback' | 'form', handler: RequestHandler): RequestHandler {
  return (req, res, next) => (connectPathKind(req) === kind ? handler(req, res, next) : next());
}

/**
 * The owner's side of connecting a shop's provider account (CONTRACT "Connecting a shop's
 * provider account"): the link's page, its button or form, and the providers' redirects back,
 * each dispatched to the provider's flow (its descriptor's `connection.flow`).
 */
export function connectRoutes(links: ConnectLinks, logger: Logger): Router {
  const router = exactRouter();
  const connect = { links, logger };
  router.route('/connect/:token').get(asPage(connect, linkPage)).all(allowOnly('GET'));
  router
    .route('/connect/:token/start')
    // The button's form: no field is read, so any body (or none) is taken and dropped.
    .post(express.urlencoded({ extended: false, limit: '1kb' }), asPage(connect, pressed))
    .all(allowOnly('POST'));
  router
    .route('/connect/:first/:second')
    .get(onlyFor('callback', asPage(connect, callback)))
    .post(
      express.urlencoded({ extended: false, limit: '8kb' }),
      onlyFor('form', asPage(connect, submitted)),
    )
    .all((req, res, next) => {
      const kind = connectPathKind(req);
      if (kind === undefined) next();
      else allowOnly(kind === 'callback' ? 'GET' : 'POST')(req, res, next);
    });
  return router;
}

/** `GET /connect/:token`: the link's page, its button or its form. */
const linkPage: PageHandler = async (req, res, _next, { links }) => {
  const token = linkToken(req.params.token);
  const page = await links.page(token);
  // The button's form is answered with a redirect to the provider, which a browser checks
  // against form-action too, and the provider may send a logged-out owner on to its login
  // elsewhere: any https origin (the redirect is ours to choose), and the providers' own.
  widenFormAction(res, links.authorizationOrigins());
  // The button's POST then carries this page's Origin (no-referrer would send `null`).
  res.setHeader('referrer-policy', 'same-origin');
  res.type('html').send(connectPage(page, token));
};

/** `POST /connect/:token/start`: the link's button, answered with a redirect to the provider. */
const pressed: PageHandler = async (req, res, _next, { links, logger }) => {
  // Only the link's own page presses its button: a page of an attacker's could otherwise start
  // the attacker's link in a victim's browser, and have the victim approve (login CSRF).
  if (postedFromAnotherSite(req, links.publicOrigin)) return refuseAnotherSite(res, logger);
  const token = linkToken(req.params.token);
  const nonce = browserOf(req, links) ?? randomValue();
  const to = await links.start(token, nonce);
  bindBrowser(res, links, nonce);
  res.redirect(303, to);
};

function sendConnected(
  res: Response,
  logger: Logger,
  done: { shop: string; provider: string; shopName: string; providerLabel: string },
  afterConnected: string | undefined,
): void {
  logger.info('shop connected', { shop: done.shop, provider: done.provider });
  const { shopName, providerLabel } = done;
  res.type('html').send(connectedPage({ shopName, providerLabel, afterConnected }));
}

/** `GET /connect/<provider>/<callback>`: the provider's redirect back, as its flow says. */
const callback: PageHandler = async (req, res, next, { links, logger }) => {
  const { first: provider = '', second: name = '' } = req.params as Record<string, string>;
  const query: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(req.query)) query[key] = queryValue(value);
  const done = await links.callback(provider, name, query, browserOf(req, links));
  if (!done) next();
  else if (done.outcome === 'redirect') res.redirect(303, done.url);
  else if (done.outcome === 'cancelled') sendOutcome(res, 200, 'cancelled');
  else if (done.outcome === 'pending') {
    const { shopName, continueUrl, providerLabel } = done;
    res.type('html').send(connectPendingPage(shopName, continueUrl, providerLabel));
  } else sendConnected(res, logger, done, flowOf(provider)?.page.afterConnected);
};

/**
 * `POST /connect/:token/<provider>`: a flow's form (the owner's data). A refusal (ours or the
 * provider's) shows the form again, with what was typed and what is wrong.
 */
const submitted: PageHandler = async (req, res, _next, { links, logger }) => {
  const { first: token = '', second: provider = '' } = req.params as Record<string, string>;
  if (postedFromAnotherSite(req, links.publicOrigin)) return refuseAnotherSite(res, logger);
  const given = (req.body ?? {}) as Record<string, unknown>;
  try {
    const page = await links.submit(linkToken(token), provider, given);
    sendConnected(res, logger, page, page.flow.afterConnected);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED') throw error;
    const page = await links.page(token).catch(() => undefined);
    if (!page?.flow.form) throw error;
    res
      .status(400)
      .type('html')
      .send(connectFormPage(page, token, given, error.details));
  }
};
