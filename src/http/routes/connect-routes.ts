import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError, errorMessage } from '../../errors';
import { allowOnly } from '../../infra/allow-only';
import { exactRouter } from '../../infra/exact-routes';
import type { Logger } from '../../infra/logger';
import { flowOf, LINK_TTL_MS, type ConnectLinks } from '../../connect/connect-links';
import { isRandomValue, randomValue } from '../../connect/connect-states';
import {
  connectBlockedPage,
  connectCancelledPage,
  connectElsewherePage,
  connectFormPage,
  connectOtherBrowserPage,
  connectTooManyPage,
  connectPendingPage,
  connectedPage,
  connectFailedPage,
  connectLinkNotFoundPage,
  connectPage,
} from '../pages/connect-pages';

/**
 * The cookie that binds a connection under way to the browser that pressed the link's button
 * (CONTRACT "Bound to the browser"): a random nonce, whose hash the state keeps.
 */
function cookieName(links: ConnectLinks): string {
  return links.secure ? '__Host-connector-connect' : 'connector-connect';
}

/** The nonce of the request's connect cookie, when it has one of the right form. */
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

/** Sets the browser's nonce in its cookie again (for the link's lifetime). */
function bindBrowser(res: Response, links: ConnectLinks, nonce: string): void {
  res.cookie(cookieName(links), nonce, {
    httpOnly: true,
    sameSite: 'lax',
    secure: links.secure,
    path: '/',
    maxAge: LINK_TTL_MS,
  });
}

/**
 * Whether a POST to a link (its button, its form) came from another site's page: a browser says
 * where a POST comes from (`Sec-Fetch-Site`, `Origin`), and only the link's own page may press
 * its button. Otherwise a page of an attacker's could start the attacker's link in a victim's
 * browser, binding the state to it, and have the victim approve (login CSRF).
 */
function fromAnotherSite(req: Request, links: ConnectLinks): boolean {
  // A browser that says where the request comes from is believed (it sends Sec-Fetch-Site
  // whatever the page's referrer policy); one that does not is judged by its Origin, which the
  // link's page sends in full (its Referrer-Policy is same-origin).
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site !== 'same-origin';
  const origin = req.get('origin');
  if (origin === undefined) return false;
  return origin !== links.publicOrigin && origin !== `${req.protocol}://${req.get('host') ?? ''}`;
}

/** A link's POST from another site's page: refused, nothing looked up or changed. */
function refuseAnotherSite(res: Response, logger: Logger): void {
  logger.warn("a connect link's button was pressed from another site's page; refused");
  res.status(403).type('html').send(connectElsewherePage());
}

function queryValue(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 2048 ? value : undefined;
}

/** The pages' answer to a failure: 404 for a link that is no more, 502 when the provider failed. */
function failed(res: Response, error: unknown, logger: Logger): void {
  if (error instanceof AppError && error.code === 'CONNECT_LINK_INVALID') {
    res.status(404).type('html').send(connectLinkNotFoundPage());
    return;
  }
  if (error instanceof AppError && error.code === 'CONNECT_OTHER_BROWSER') {
    logger.warn('a connect callback came to another browser; nothing changed');
    res.status(400).type('html').send(connectOtherBrowserPage());
    return;
  }
  if (error instanceof AppError && error.code === 'RATE_LIMITED') {
    logger.warn('a connect link was refused by its provider too often; held for an hour');
    res.status(429).setHeader('retry-after', '3600').type('html').send(connectTooManyPage());
    return;
  }
  if (error instanceof AppError && error.code === 'VALIDATION_FAILED') {
    logger.warn('a shop cannot be connected as it stands', {
      error: error.message,
      details: error.details,
    });
    res.status(409).type('html').send(connectBlockedPage());
    return;
  }
  logger.warn('a connection could not be completed', {
    error: errorMessage(error),
    code: error instanceof AppError ? error.code : undefined,
  });
  // The provider refused what it was handed (a code forged, used or lapsed): the request's
  // fault, 400; the provider unreachable or failing, 502. The page is the same.
  const refused = error instanceof AppError && error.code === 'PROVIDER_REJECTED';
  res
    .status(refused && error.upstreamStatus === 400 ? 400 : 502)
    .type('html')
    .send(connectFailedPage());
}

/**
 * The owner's side of connecting a shop's provider account (CONTRACT "Connecting a shop's
 * provider account"): the link's page, its button or form, and the providers' redirects back,
 * each dispatched to the provider's flow (its descriptor's `connection.flow`): `/connect/:token`,
 * `POST /connect/:token/start`, `POST /connect/:token/<provider>` (a flow's form) and
 * `GET /connect/<provider>/<callback>` (`/connect/mercadopago/callback`,
 * `/connect/stripe/return`...).
 */
export function connectRoutes(links: ConnectLinks, logger: Logger): Router {
  const router = exactRouter();
  router
    .route('/connect/:token')
    .get(async (req, res) => {
      const token = String(req.params.token);
      try {
        if (!isRandomValue(token)) throw new AppError('CONNECT_LINK_INVALID', 'no link');
        const page = await links.page(token);
        // The button's form is answered with a redirect to the provider, which a browser checks
        // against form-action too, and the provider may send a logged-out owner on to its login
        // elsewhere: any https origin (the redirect is ours to choose), and the providers' own.
        const csp = res.getHeader('content-security-policy');
        if (typeof csp === 'string') {
          const origins = links.authorizationOrigins().join(' ');
          res.setHeader(
            'content-security-policy',
            csp.replace("form-action 'self'", `form-action 'self' https: ${origins}`),
          );
        }
        // The button's POST then carries this page's Origin (no-referrer would send `null`).
        res.setHeader('referrer-policy', 'same-origin');
        res.type('html').send(connectPage(page, token));
      } catch (error) {
        failed(res, error, logger);
      }
    })
    .all(allowOnly('GET'));
  router
    .route('/connect/:token/start')
    // The button's form: no field is read, so any body (or none) is taken and dropped.
    .post(express.urlencoded({ extended: false, limit: '1kb' }), async (req, res) => {
      const token = String(req.params.token);
      if (fromAnotherSite(req, links)) {
        refuseAnotherSite(res, logger);
        return;
      }
      try {
        if (!isRandomValue(token)) throw new AppError('CONNECT_LINK_INVALID', 'no link');
        const nonce = browserOf(req, links) ?? randomValue();
        const to = await links.start(token, nonce);
        bindBrowser(res, links, nonce);
        res.redirect(303, to);
      } catch (error) {
        failed(res, error, logger);
      }
    })
    .all(allowOnly('POST'));
  router
    .route('/connect/:first/:second')
    .get((req, res, next) => void callback(req, res, next, links, logger))
    .post(express.urlencoded({ extended: false, limit: '8kb' }), (req, res, next) => {
      void submitted(req, res, next, links, logger);
    })
    .all((req, res, next) => {
      const first = String(req.params.first);
      const second = String(req.params.second);
      if (flowOf(first)?.callback(second)) allowOnly('GET')(req, res, next);
      else if (flowOf(second)?.submit) allowOnly('POST')(req, res, next);
      else next();
    });
  return router;
}

/** `GET /connect/<provider>/<callback>`: the provider's redirect back, as its flow says. */
async function callback(
  req: Request,
  res: Response,
  next: NextFunction,
  links: ConnectLinks,
  logger: Logger,
): Promise<void> {
  const { first: provider = '', second: name = '' } = req.params as Record<string, string>;
  if (!flowOf(provider)?.callback(name)) {
    // A flow's form is posted, never opened.
    if (flowOf(name)?.submit) allowOnly('POST')(req, res, next);
    else next();
    return;
  }
  const query: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(req.query)) query[key] = queryValue(value);
  try {
    const done = await links.callback(provider, name, query, browserOf(req, links));
    if (!done) {
      next();
      return;
    }
    if (done.outcome === 'redirect') {
      res.redirect(303, done.url);
      return;
    }
    if (done.outcome === 'cancelled') {
      res.type('html').send(connectCancelledPage());
      return;
    }
    if (done.outcome === 'pending') {
      res
        .type('html')
        .send(connectPendingPage(done.shopName, done.continueUrl, done.providerLabel));
      return;
    }
    logger.info('shop connected', { shop: done.shop, provider: done.provider });
    const afterConnected = flowOf(provider)?.page.afterConnected;
    const { shopName, providerLabel } = done;
    res.type('html').send(connectedPage({ shopName, providerLabel, afterConnected }));
  } catch (error) {
    failed(res, error, logger);
  }
}

/**
 * `POST /connect/:token/<provider>`: a flow's form (the owner's data). A refusal (ours or the
 * provider's) shows the form again, with what was typed and what is wrong.
 */
async function submitted(
  req: Request,
  res: Response,
  next: NextFunction,
  links: ConnectLinks,
  logger: Logger,
): Promise<void> {
  const { first: token = '', second: provider = '' } = req.params as Record<string, string>;
  if (flowOf(token)?.callback(provider)) {
    allowOnly('GET')(req, res, next);
    return;
  }
  if (!flowOf(provider)?.submit) {
    next();
    return;
  }
  if (fromAnotherSite(req, links)) {
    refuseAnotherSite(res, logger);
    return;
  }
  const given = (req.body ?? {}) as Record<string, unknown>;
  try {
    if (!isRandomValue(token)) throw new AppError('CONNECT_LINK_INVALID', 'no link');
    const page = await links.submit(token, provider, given);
    logger.info('shop connected', { shop: page.shop, provider: page.provider });
    const { shopName, providerLabel } = page;
    const { afterConnected } = page.flow;
    res.type('html').send(connectedPage({ shopName, providerLabel, afterConnected }));
  } catch (error) {
    if (error instanceof AppError && error.code === 'VALIDATION_FAILED') {
      // The form again, with what was typed and what is wrong in it.
      const page = await links.page(token).catch(() => undefined);
      if (page?.flow.form) {
        res
          .status(400)
          .type('html')
          .send(connectFormPage(page, token, given, error.details));
        return;
      }
    }
    failed(res, error, logger);
  }
}
