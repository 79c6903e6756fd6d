import { Router } from 'express';
import { notFoundPage } from '../../html/page-layout';
import { allowOnly } from '../../infra/allow-only';
import type { ProviderHooks } from '../provider-module';
import { sandboxPaymentPage } from './sandbox-page';
import type { SandboxProvider } from './sandbox-provider';

/** An id fit to be part of a Redis key; whether it is a payment, the lookup says. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The sandbox's payment page and its buttons. A button settles the payment at the "provider"
 * and then takes exactly the path a verified webhook takes (`hooks.hint`).
 */
export function sandboxRoutes(
  sandbox: SandboxProvider,
  hooks: ProviderHooks,
  pageNotice: string | undefined,
): Router {
  const router = Router();
  const paymentOf = (checkoutId: string) =>
    SAFE_ID.test(checkoutId) ? sandbox.payment(checkoutId) : Promise.resolve(undefined);

  router
    .route('/sandbox/checkout/:checkoutId')
    .get(async (req, res) => {
      const payment = await paymentOf(req.params.checkoutId);
      if (!payment) {
        res.status(404).type('html').send(notFoundPage(pageNotice));
        return;
      }
      res.type('html').send(sandboxPaymentPage(payment, pageNotice));
    })
    .all(allowOnly('GET'));

  for (const [action, outcome] of [
    ['pay', 'paid'],
    ['pix', 'processing'],
    ['decline', 'failed'],
  ] as const) {
    router
      .route(`/sandbox/checkout/:checkoutId/${action}`)
      .post(async (req, res) => {
        const checkoutId = req.params.checkoutId;
        const payment = await paymentOf(checkoutId);
        if (!payment) {
          res.status(404).type('html').send(notFoundPage(pageNotice));
          return;
        }
        await sandbox.settle(checkoutId, outcome);
        await hooks.hint(checkoutId);
        res.redirect(303, payment.returnUrl);
      })
      .all(allowOnly('POST'));
  }
  return router;
}
