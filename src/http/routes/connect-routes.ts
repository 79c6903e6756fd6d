import express, { type Request, type Response, type Router } from 'express';
import { AppError, errorMessage } from '../../errors';
import { allowOnly } from '../../infra/allow-only';
import { exactRouter } from '../../infra/exact-routes';
import type { Logger } from '../../infra/logger';
import { STRIPE_API } from '../../payments/stripe/stripe-api';
import {
  LINK_TTL_MS,
  MERCADOPAGO_CALLBACK_PATH,
  type ConnectLinks,
} from '../../shop-registry/connect-links';
import { isRandomValue, randomValue } from '../../shop-registry/connect-states';
import { STRIPE_REFRESH_PATH, STRIPE_RETURN_PATH } from '../../shop-registry/stripe-onboarding';
import {
  asaasFormPage,
  connectBlockedPage,
  connectCancelledPage,
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

/** The browser's nonce (a new one when it has none), set again in its cookie. */
function bindBrowser(req: Request, res: Response, links: ConnectLinks): string {
  const nonce = browserOf(req, links) ?? randomValue();
  res.cookie(cookieName(links), nonce, {
    httpOnly: true,
    sameSite: 'lax',
    secure: links.secure,
    path: '/',
    maxAge: LINK_TTL_MS,
  });
  return nonce;
}

function query(value: unknown): string | undefined {
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
  res.status(502).type('html').send(connectFailedPage());
}

/**
 * The owner's side of connecting a shop's provider account (CONTRACT "Connecting a shop's
 * provider account"): the link's page and its button, and the provider's callback.
 */
export function connectRoutes(links: ConnectLinks, logger: Logger): Router {
  const router = exactRouter();
  oauthCallback(router, links, logger);
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
        res.type('html').send(connectPage(page, token));
      } catch (error) {
        failed(res, error, logger);
      }
    })
    .all(allowOnly('GET'));
  asaasForm(router, links, logger);
  stripeReturn(router, links, logger);
  router
    .route('/connect/:token/start')
    // The button's form: no field is read, so any body (or none) is taken and dropped.
    .post(express.urlencoded({ extended: false, limit: '1kb' }), async (req, res) => {
      const token = String(req.params.token);
      try {
        if (!isRandomValue(token)) throw new AppError('CONNECT_LINK_INVALID', 'no link');
        res.redirect(303, await links.start(token, bindBrowser(req, res, links)));
      } catch (error) {
        failed(res, error, logger);
      }
    })
    .all(allowOnly('POST'));
  return router;
}

/** Mercado Pago's OAuth callback, in the browser that pressed the link's button. */
function oauthCallback(router: Router, links: ConnectLinks, logger: Logger): void {
  router
    .route(MERCADOPAGO_CALLBACK_PATH)
    .get(async (req, res) => {
      try {
        const done = await links.finish(
          {
            code: query(req.query.code),
            state: query(req.query.state),
            error: query(req.query.error),
          },
          browserOf(req, links),
        );
        if (done.outcome === 'cancelled') {
          res.type('html').send(connectCancelledPage());
          return;
        }
        logger.info('shop connected', { shop: done.page.shop, provider: done.page.provider });
        res.type('html').send(connectedPage(done.page));
      } catch (error) {
        failed(res, error, logger);
      }
    })
    .all(allowOnly('GET'));
}

/**
 * The Asaas link's form: the owner's data, the shop's subaccount created from it. A refusal (ours
 * or Asaas's) shows the form again, with what was typed and what is wrong.
 */
function asaasForm(router: Router, links: ConnectLinks, logger: Logger): void {
  router
    .route('/connect/:token/asaas')
    .post(express.urlencoded({ extended: false, limit: '8kb' }), async (req, res) => {
      const token = String(req.params.token);
      const given = (req.body ?? {}) as Record<string, unknown>;
      try {
        if (!isRandomValue(token)) throw new AppError('CONNECT_LINK_INVALID', 'no link');
        const page = await links.connectAsaas(token, given);
        logger.info('shop connected', { shop: page.shop, provider: page.provider });
        res.type('html').send(connectedPage(page));
      } catch (error) {
        if (error instanceof AppError && error.code === 'VALIDATION_FAILED') {
          // The form again, with what was typed and what is wrong in it.
          const page = await links.page(token).catch(() => undefined);
          if (page) {
            res
              .status(400)
              .type('html')
              .send(asaasFormPage(page, token, given, error.details));
            return;
          }
        }
        failed(res, error, logger);
      }
    })
    .all(allowOnly('POST'));
}

/** The owner back from Stripe's onboarding, and an onboarding link that lapsed. */
function stripeReturn(router: Router, links: ConnectLinks, logger: Logger): void {
  router
    .route(STRIPE_RETURN_PATH)
    .get(async (req, res) => {
      try {
        const back = await links.stripe.returned(query(req.query.state), browserOf(req, links));
        if (back.outcome === 'pending') {
          res.type('html').send(connectPendingPage(back.shopName, back.continueUrl));
          return;
        }
        logger.info('shop connected', { shop: back.shop, provider: 'stripe' });
        res.type('html').send(
          connectedPage({
            shopName: back.shopName,
            provider: 'stripe',
            providerLabel: STRIPE_API.label,
          }),
        );
      } catch (error) {
        failed(res, error, logger);
      }
    })
    .all(allowOnly('GET'));
  router
    .route(STRIPE_REFRESH_PATH)
    .get(async (req, res) => {
      try {
        res.redirect(
          303,
          await links.stripe.refresh(query(req.query.state), browserOf(req, links)),
        );
      } catch (error) {
        failed(res, error, logger);
      }
    })
    .all(allowOnly('GET'));
}
