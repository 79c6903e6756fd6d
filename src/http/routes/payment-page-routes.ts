import { Router } from 'express';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { isCheckoutId, isOpen } from '../../checkout/checkout-record';
import { syncFromProvider } from '../../checkout/settle-checkout';
import type { SandboxProvider } from '../../payments/sandbox/sandbox-provider';
import { notFoundPage, returnPage, sandboxPaymentPage } from '../pages/checkout-pages';

/** The customer's pages: the provider's return target, and the sandbox payment page. */
export function paymentPageRoutes(
  deps: CheckoutDeps,
  sandbox: SandboxProvider | undefined,
): Router {
  const router = Router();

  router.get('/return/:provider', async (req, res) => {
    const checkoutId = typeof req.query.checkout_id === 'string' ? req.query.checkout_id : '';
    const record = isCheckoutId(checkoutId) ? await deps.store.get(checkoutId) : undefined;
    if (!record || record.provider !== req.params.provider) {
      res.status(404).type('html').send(notFoundPage());
      return;
    }
    // The redirect is a hint, like a webhook: ask the provider before showing the page.
    const current = isOpen(record.state) ? await syncFromProvider(deps, record) : record;
    res.type('html').send(returnPage(current));
  });

  if (!sandbox) return router;

  router.get('/sandbox/checkout/:checkoutId', async (req, res) => {
    const payment = isCheckoutId(req.params.checkoutId)
      ? await sandbox.payment(req.params.checkoutId)
      : undefined;
    if (!payment) {
      res.status(404).type('html').send(notFoundPage());
      return;
    }
    res.type('html').send(sandboxPaymentPage(payment));
  });

  for (const [action, outcome] of [
    ['pay', 'paid'],
    ['pix', 'processing'],
    ['decline', 'failed'],
  ] as const) {
    router.post(`/sandbox/checkout/:checkoutId/${action}`, async (req, res) => {
      const checkoutId = req.params.checkoutId;
      const record = isCheckoutId(checkoutId) ? await deps.store.get(checkoutId) : undefined;
      const payment = record ? await sandbox.payment(checkoutId) : undefined;
      if (!record || !payment) {
        res.status(404).type('html').send(notFoundPage());
        return;
      }
      await sandbox.settle(checkoutId, outcome);
      // Exactly what a verified webhook leads to: read the provider's status, record it once.
      await syncFromProvider(deps, record);
      res.redirect(303, payment.returnUrl);
    });
  }
  return router;
}
