import type { Request, Response } from 'express';
import { AppError } from '../../errors';
import { notFoundPage } from '../../html/page-layout';
import type { FindPageShop, PageHandler, PageRoute, PageShop } from '../provider-pages';
import type { PixCharge, PixCharges } from './pix-charges';
import { PIX_PAGE_SCRIPT, PIX_SCRIPT_PATH, pixPaymentPage } from './pix-page';

export type PixPageCharges = Pick<PixCharges, 'find'>;

/** The page's script: the same for every page, cached an hour. */
function sendScript(_req: Request, res: Response): void {
  res.setHeader('cache-control', 'public, max-age=3600');
  res.type('text/javascript').send(PIX_PAGE_SCRIPT);
}

/** The PSP is asked about one open checkout at most this often, however many pages poll it. */
const HINT_EVERY_MS = 10_000;

type FindCharge = (
  checkoutId: string,
) => Promise<{ shop: PageShop<PixPageCharges>; charge: PixCharge } | undefined>;

function pixPage(find: FindCharge, defaultNotice: string | undefined): PageHandler {
  return async (req, res) => {
    const found = await find(req.params.checkoutId);
    const state = found ? await found.shop.stateOf(found.charge.checkoutId) : undefined;
    if (!found || !state) {
      res.status(404).type('html').send(notFoundPage(defaultNotice));
      return;
    }
    const { charge, shop } = found;
    const html = await pixPaymentPage({
      checkoutId: charge.checkoutId,
      serviceId: charge.serviceId,
      amount: { amountMinor: charge.amountMinor, currency: charge.currency },
      expiresAt: charge.expiresAt,
      pixCopiaECola: charge.pixCopiaECola,
      state,
      returnUrl: charge.returnUrl,
      ...(shop.storefront ? { storefront: shop.storefront } : {}),
      ...(shop.pageNotice ? { notice: shop.pageNotice } : {}),
    });
    res.type('html').send(html);
  };
}

function pixStatus(find: FindCharge): PageHandler {
  const mayAsk = throttle(HINT_EVERY_MS);
  return async (req, res) => {
    const found = await find(req.params.checkoutId);
    let state = found ? await found.shop.stateOf(found.charge.checkoutId) : undefined;
    if (!found || !state) {
      throw new AppError('NOT_FOUND', 'No Pix charge has that checkout id.');
    }
    // The bank away: the state recorded is the answer; the next poll asks again.
    if (state === 'open' && mayAsk(found.charge.checkoutId)) {
      const asked = await found.shop.hint(found.charge.checkoutId).then(
        () => true,
        () => false,
      );
      if (asked) state = (await found.shop.stateOf(found.charge.checkoutId)) ?? state;
    }
    res.json({ state, ...(state === 'paid' ? { next: found.charge.returnUrl } : {}) });
  };
}

/**
 * The connector's own Pix page, `GET /pix/<checkout id>` (pt-BR, the QR code and the copy-and-
 * paste code), its script, and `GET /pix/<checkout id>/status`, which the page polls to move
 * on to the return page once paid. A poll of an open checkout reads the charge at the PSP now and
 * then, so a lost webhook does not keep the customer waiting for the reconciler.
 */
export function pixRoutes(
  /** The shop a checkout id names, if it is one of a Pix shop's; undefined for any other id. */
  pixOf: FindPageShop<PixPageCharges>,
  defaultNotice: string | undefined,
): PageRoute[] {
  const find: FindCharge = async (checkoutId) => {
    const shop = await pixOf(checkoutId);
    const charge = shop ? await shop.own.find(checkoutId) : undefined;
    return shop && charge ? { shop, charge } : undefined;
  };
  return [
    { path: PIX_SCRIPT_PATH, get: sendScript },
    { path: '/pix/:checkoutId', get: pixPage(find, defaultNotice) },
    { path: '/pix/:checkoutId/status', get: pixStatus(find) },
  ];
}

/** Whether this process may act for a key now (and notes that it does): once per `everyMs`. */
function throttle(everyMs: number): (key: string) => boolean {
  const doneAt = new Map<string, number>();
  return (key) => {
    const now = Date.now();
    const last = doneAt.get(key);
    if (last !== undefined && now - last < everyMs) return false;
    for (const [old, at] of doneAt) if (now - at >= everyMs) doneAt.delete(old);
    doneAt.set(key, now);
    return true;
  };
}
