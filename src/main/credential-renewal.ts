import type { ObservedConnection } from '../infra/metrics';
import { expiringCredential, type ShopSource } from '../shop-registry/shop-settings';

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

/** The registry's connected shops, as the renewal pass (`ShopCredentials.renewDue`) takes them. */
export function connectedShops(
  shops: Pick<ShopSource, 'ids' | 'get'>,
): Array<{ id: string; renews: boolean; expiresAt?: string }> {
  return shops.ids().flatMap((id) => {
    const connection = shops.get(id)?.connection;
    if (!connection) return [];
    const { renews, expiresAt } = connection;
    return [{ id, renews, ...(expiresAt ? { expiresAt } : {}) }];
  });
}
