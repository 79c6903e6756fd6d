import type { ObservedConnection } from '../infra/metrics';
import type { Logger } from '../infra/logger';
import type { ShopCredentials } from '../shop-registry/shop-credentials';
import { expiringCredential, type ShopSource } from '../shop-registry/shop-settings';

/** How often a worker looks for connected credentials due for renewal. */
export const RENEWAL_CHECK_MS = 15 * 60_000;

/**
 * The shops this process serves whose credential is watched: the connected ones (the registry's:
 * the env shop is never connected), and any whose pasted credential expires (an API Pix client
 * certificate, the env shop's too).
 */
export function servedConnections(shops: Pick<ShopSource, 'ids' | 'get'>): ObservedConnection[] {
  return shops.ids().flatMap((shop) => {
    const settings = shops.get(shop);
    if (!settings) return [];
    const credential = expiringCredential(settings);
    if (!settings.connection && !credential) return [];
    return [
      {
        shop,
        needsReconnect: settings.needsReconnect !== undefined,
        ...(credential ? { credential } : {}),
      },
    ];
  });
}

/**
 * Renews the connected credentials that are due, now and every RENEWAL_CHECK_MS, on a worker:
 * every worker looks, the per-shop lock lets one renew. Answers the stop of its timer.
 */
export function keepCredentialsAlive(
  shops: Pick<ShopSource, 'ids' | 'get'>,
  credentials: Pick<ShopCredentials, 'renewDue'>,
  logger: Pick<Logger, 'warn'>,
): () => void {
  const pass = (): void => {
    const due = shops.ids().flatMap((id) => {
      const connection = shops.get(id)?.connection;
      return connection
        ? [
            {
              id,
              renews: connection.renews,
              ...(connection.expiresAt ? { expiresAt: connection.expiresAt } : {}),
            },
          ]
        : [];
    });
    credentials.renewDue(due).catch((error: unknown) => {
      logger.warn('the renewal pass failed; the next one tries again', { error: String(error) });
    });
  };
  pass();
  const timer = setInterval(pass, RENEWAL_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
