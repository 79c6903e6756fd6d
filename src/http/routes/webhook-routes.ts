import express, { Router, type Request, type Response } from 'express';
import { exactRouter } from '../exact-routes';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import {
  answeredForNothing,
  handleProviderWebhook,
  type WebhookResult,
} from '../../checkout/handle-provider-webhook';
import type { EventOutcome, PlatformEvent } from '../../payments/connect-flow';
import type { ShopDirectory } from '../../checkout/shop-directory';
import { AppError } from '../../errors';
import { allowOnly } from '../allow-only';
import { PROVIDER_LIST } from '../../payments/providers';
import { isShopId, shopOrEnv } from '../../shop/shop-id';
import { countAsFailure } from '../middleware/rate-limits';

/** What the Connect endpoints need: the providers' platform events, and each account's shop. */
export interface ConnectEvents {
  /** The providers whose vendor account sends platform events. */
  eventProviders(): string[];
  /** An event of `provider`'s, verified with the vendor's secret, then done by its flow. */
  event(
    provider: string,
    rawBody: Buffer,
    headers: Record<string, unknown>,
  ): Promise<{ event: PlatformEvent; outcome: EventOutcome }>;
  shopOf(provider: string, account: string): Promise<CheckoutDeps | undefined>;
}

/**
 * `POST /webhooks/<provider>-connect` (`/webhooks/stripe-connect`): the vendor's platform
 * endpoint, whose events carry the connected account they are of. The provider's connect flow
 * takes what concerns connecting (an onboarding completed, an account disabled); any other event
 * goes to the shop connected to that account, whose provider (acting as that account) verifies it
 * again and reads the truth as it: an event never settles another shop's checkout.
 */
function connectEventRoutes(router: Router, connect: ConnectEvents): void {
  for (const provider of connect.eventProviders()) {
    router
      .route(`/webhooks/${provider}-connect`)
      .post(express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }), async (req, res) => {
        const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const { event, outcome } = await connect.event(provider, rawBody, req.headers);
        if (outcome.outcome !== 'unhandled') {
          res.json({
            received: true,
            ...(outcome.outcome === 'connected' ? { connected: outcome.shop } : {}),
            ...(outcome.outcome === 'needs-reconnect' ? { needs_reconnect: outcome.shop } : {}),
            ...(outcome.outcome === 'restored' ? { restored: outcome.shop } : {}),
          });
          return;
        }
        const deps = event.account ? await connect.shopOf(provider, event.account) : undefined;
        if (!deps) {
          res.json({ received: true, ignored: 'no shop is connected to that account' });
          return;
        }
        const result = await handleProviderWebhook(deps, {
          headers: req.headers,
          query: req.query as Record<string, unknown>,
          rawBody,
        });
        res.json({ received: true, ...resultFields(result) });
      })
      .all(allowOnly('POST'));
  }
}

function resultFields(result: WebhookResult): Record<string, unknown> {
  if (result.kind === 'batch') return { results: result.results.map(resultFields) };
  return {
    ...(result.kind === 'ignored' ? { ignored: result.reason } : {}),
    ...(result.kind === 'unknown_payment' ? { ignored: 'unknown payment' } : {}),
    ...(result.kind === 'duplicate' ? { duplicate: true } : {}),
    ...(result.kind === 'synced'
      ? {
          checkout_id: result.checkoutId,
          state: result.state,
          ...(result.incident ? { incident: result.incident } : {}),
        }
      : {}),
  };
}

/** Providers' events are larger than the connector's other bodies (some run to tens of kB). */
export const WEBHOOK_BODY_LIMIT = '256kb';

/**
 * Provider webhooks. The raw body is kept for the signature check; the use case does the rest.
 * Duplicates and events for unknown payments get 2xx, so the provider does not retry them forever.
 */
export function webhookRoutes(
  shops: Pick<ShopDirectory<{ deps: CheckoutDeps }>, 'byId'>,
  connect?: ConnectEvents,
): Router {
  const router = exactRouter();
  if (connect) connectEventRoutes(router, connect);
  // `/webhooks/:provider` is the env shop's; `/webhooks/:provider/:shop` a registry shop's (a
  // provider that appends a suffix to the URL registered, as the API Pix appends `/pix`, is also
  // served there: its descriptor's `webhookSuffix`). The shop's own provider verifies the call
  // with the shop's secret, and settles only its checkouts.
  const body = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });
  router
    .route(['/webhooks/:provider', '/webhooks/:provider/:shop'])
    .post(body, shopWebhook(shops))
    .all(allowOnly('POST'));
  for (const { name, webhookSuffix } of PROVIDER_LIST) {
    if (webhookSuffix === undefined) continue;
    router
      .route(`/webhooks/${name}/:shop/${webhookSuffix}`)
      .post(body, shopWebhook(shops, name))
      .all(allowOnly('POST'));
  }
  return router;
}

/**
 * One shop's webhook: the shop the path names (none: the env shop), whose provider must be the
 * one the path names (`provider`, for a path of one provider's own).
 */
function shopWebhook(
  shops: Pick<ShopDirectory<{ deps: CheckoutDeps }>, 'byId'>,
  provider?: string,
): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    // A named parameter is one path segment (arrays are a wildcard's).
    const shop = shopOrEnv(req.params['shop'] as string | undefined);
    const deps = isShopId(shop) ? (await shops.byId(shop))?.deps : undefined;
    if (!deps) {
      throw new AppError('SHOP_NOT_FOUND', `No shop ${shop} is served here.`, {
        retryable: false,
      });
    }
    const named = provider ?? (req.params['provider'] as string);
    if (named !== deps.provider.name) {
      throw new AppError('UNKNOWN_PROVIDER', `No provider named ${named} is configured.`);
    }
    const result = await handleProviderWebhook(deps, {
      headers: req.headers,
      query: req.query as Record<string, unknown>,
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    if (answeredForNothing(deps.provider, result)) countAsFailure(res);
    res.json({ received: true, ...resultFields(result) });
  };
}
