import { notFoundPage } from '../../html/page-layout';
import type { FindPageShop, PageRoute, PageShop } from '../provider-pages';
import { sandboxPaymentPage } from './sandbox-page';
import type { SandboxPayment, SandboxProvider } from './sandbox-provider';

type SandboxShop = PageShop<SandboxProvider>;

type FindPayment = (
  checkoutId: string,
) => Promise<(SandboxShop & { payment: SandboxPayment }) | undefined>;

/** What a button does at the "provider", and whether the customer then goes back to the shop. */
type Button = [string, (found: SandboxShop, id: string) => Promise<unknown>, boolean];

// The buttons: the payment's own (the customer then goes back to the shop), and the
// simulator's after the outcome (a refund, a chargeback, a late payment: back to the page).
const BUTTONS: Button[] = [
  // Pay is the card's button (and confirms a Pix or boleto under way, keeping its method).
  ['pay', (found, id) => found.own.settle(id, 'paid', 'card'), true],
  ['pix', (found, id) => found.own.settle(id, 'processing', 'pix'), true],
  ['boleto', (found, id) => found.own.settle(id, 'processing', 'boleto'), true],
  ['decline', (found, id) => found.own.settle(id, 'failed'), true],
  ['refund', (found, id) => found.own.after(id, 'refunded'), false],
  ['chargeback', (found, id) => found.own.after(id, 'charged_back'), false],
  ['late-pay', (found, id) => found.own.after(id, 'paid'), false],
];

function buttonRoute(
  [action, act, toShop]: Button,
  find: FindPayment,
  defaultNotice: string | undefined,
): PageRoute {
  return {
    path: `/sandbox/checkout/:checkoutId/${action}`,
    post: async (req, res) => {
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
    },
  };
}

/**
 * The sandbox's payment page and its buttons. A button settles the payment at the "provider"
 * and then takes exactly the path a verified webhook takes (`hooks.hint`).
 */
export function sandboxRoutes(
  sandboxOf: FindPageShop<SandboxProvider>,
  /** The notice of a page no shop answers (an unknown id): the deployment's, if it has one. */
  defaultNotice?: string,
): PageRoute[] {
  // The checkout id names its shop; that shop's sandbox (if its provider is the sandbox) answers.
  const find: FindPayment = async (checkoutId) => {
    const shop = await sandboxOf(checkoutId);
    const payment = shop ? await shop.own.payment(checkoutId) : undefined;
    return shop && payment ? { ...shop, payment } : undefined;
  };
  const page: PageRoute = {
    path: '/sandbox/checkout/:checkoutId',
    get: async (req, res) => {
      const found = await find(req.params.checkoutId);
      if (!found) {
        res.status(404).type('html').send(notFoundPage(defaultNotice));
        return;
      }
      res.type('html').send(sandboxPaymentPage(found.payment, found.pageNotice, found.storefront));
    },
  };
  return [page, ...BUTTONS.map((button) => buttonRoute(button, find, defaultNotice))];
}
