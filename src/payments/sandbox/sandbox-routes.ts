import { Router } from 'express';
import { exactRouter } from '../../infra/exact-routes';
import { notFoundPage } from '../../html/page-layout';
import { allowOnly } from '../../infra/allow-only';
import type { FindPageShop, PageShop } from '../provider-pages';
import { sandboxPaymentPage } from './sandbox-page';
import type { SandboxProvider } from './sandbox-provider';

/** One shop's sandbox, as its pages need it: the sandbox is what its module gives them. */
type SandboxShop = PageShop<SandboxProvider>;

/**
 * The sandbox's payment page and its buttons. A button settles the payment at the "provider"
 * and then takes exactly the path a verified webhook takes (`hooks.hint`).
 */
export function sandboxRoutes(
  sandboxOf: FindPageShop<SandboxProvider>,
  /** The notice of a page no shop answers (an unknown id): the deployment's, if it has one. */
  defaultNotice?: string,
): Router {
  const router = exactRouter();
  // The checkout id names its shop; that shop's sandbox (if its provider is the sandbox) answers.
  const find = async (checkoutId: string) => {
    const shop = await sandboxOf(checkoutId);
    const payment = shop ? await shop.own.payment(checkoutId) : undefined;
    return shop && payment ? { ...shop, payment } : undefined;
  };

  router
    .route('/sandbox/checkout/:checkoutId')
    .get(async (req, res) => {
      const found = await find(req.params.checkoutId);
      if (!found) {
        res.status(404).type('html').send(notFoundPage(defaultNotice));
        return;
      }
      res.type('html').send(sandboxPaymentPage(found.payment, found.pageNotice, found.storefront));
    })
    .all(allowOnly('GET'));

  // The buttons: the payment's own (the customer then goes back to the shop), and the
  // simulator's after the outcome (a refund, a chargeback, a late payment: back to the page).
  const buttons: Array<[string, (found: SandboxShop, id: string) => Promise<unknown>, boolean]> = [
    // Pay is the card's button (and confirms a Pix or boleto under way, keeping its method).
    ['pay', (found, id) => found.own.settle(id, 'paid', 'card'), true],
    ['pix', (found, id) => found.own.settle(id, 'processing', 'pix'), true],
    ['boleto', (found, id) => found.own.settle(id, 'processing', 'boleto'), true],
    ['decline', (found, id) => found.own.settle(id, 'failed'), true],
    ['refund', (found, id) => found.own.after(id, 'refunded'), false],
    ['chargeback', (found, id) => found.own.after(id, 'charged_back'), false],
    ['late-pay', (found, id) => found.own.after(id, 'paid'), false],
  ];
  for (const [action, act, toShop] of buttons) {
    router
      .route(`/sandbox/checkout/:checkoutId/${action}`)
      .post(async (req, res) => {
        const checkoutId = req.params.checkoutId;
        const found = await find(checkoutId);
        if (!found) {
          res.status(404).type('html').send(notFoundPage(defaultNotice));
          return;
        }
        await act(found, checkoutId);
        await found.hint(checkoutId);
        res.redirect(
          303,
          toShop ? found.payment.returnUrl : `/sandbox/checkout/${encodeURIComponent(checkoutId)}`,
        );
      })
      .all(allowOnly('POST'));
  }
  return router;
}
