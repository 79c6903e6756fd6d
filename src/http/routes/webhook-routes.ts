import express, { Router } from 'express';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { syncFromProvider } from '../../checkout/settle-checkout';
import { AppError } from '../../errors';
import type { Logger } from '../../infra/logger';

/**
 * Provider webhooks. The raw body is kept for signature checks; a verified event is only a
 * hint, so the handler reads the payment's status from the provider. Events for unknown
 * payments and duplicates get 2xx, so the provider does not retry them forever.
 */
export function webhookRoutes(deps: CheckoutDeps, logger: Logger): Router {
  const router = Router();
  router.post(
    '/webhooks/:provider',
    express.raw({ type: () => true, limit: '256kb' }),
    async (req, res) => {
      if (req.params.provider !== deps.provider.name) {
        throw new AppError(
          'UNKNOWN_PROVIDER',
          `No provider named ${req.params.provider} is configured.`,
        );
      }
      const hint = await deps.provider.parseWebhook({
        headers: req.headers,
        query: req.query as Record<string, unknown>,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      });
      if ('ignore' in hint) {
        res.json({ received: true, ignored: hint.ignore });
        return;
      }
      const record = await deps.store.findByProviderRef(deps.provider.name, hint.providerRef);
      if (!record) {
        logger.warn('webhook for an unknown payment', {
          provider: deps.provider.name,
          eventId: hint.eventId,
        });
        res.json({ received: true, ignored: 'unknown payment' });
        return;
      }
      const current = await syncFromProvider(deps, record);
      res.json({ received: true, checkout_id: current.checkoutId, state: current.state });
    },
  );
  return router;
}
