import { DataKey, type Keyring } from '../secrets/secret-box';
import type { AuditEntry, RegistryStore } from './ports';
import { changeShop } from './shop-changes';
import type { StoredShop } from './stored-shop';

/** How long a rotated-out route token keeps working (CONTRACT: 24 hours). */
const PREVIOUS_TOKEN_MS = 24 * 3_600_000;

/**
 * Stores `token` as the shop's route token (`shops rotate-token`). The previous one works for 24
 * hours more, or not at all with `revokePrevious` (a leaked token).
 */
export async function rotateRouteToken(
  store: RegistryStore,
  keyring: Keyring,
  id: string,
  rotation: {
    token: string;
    now: Date;
    revokePrevious?: boolean;
    audit: (fields: string[]) => AuditEntry;
  },
): Promise<{ stored: StoredShop; until: string | undefined }> {
  const { token, now } = rotation;
  const until = rotation.revokePrevious
    ? undefined
    : new Date(now.getTime() + PREVIOUS_TOKEN_MS).toISOString();
  const stored = await changeShop(store, id, async ({ stored: current }) => {
    const dataKey = DataKey.unwrap(keyring, id, current.dataKey);
    return {
      stored: {
        ...current,
        updatedAt: now.toISOString(),
        routeToken: {
          hash: dataKey.tokenHash(id, token),
          rotatedAt: now.toISOString(),
          ...(until ? { previousHash: current.routeToken.hash, previousUntil: until } : {}),
        },
      },
      audit: rotation.audit([until ? 'routeToken' : 'routeToken (previous revoked)']),
    };
  });
  return { stored, until };
}

/**
 * Re-wraps every shop's data key with the active master key (`shops rekey`), so older keys can be
 * retired. The values are untouched: the data keys seal them.
 */
export async function rekeyShops(
  store: RegistryStore,
  keyring: Keyring,
  audit: () => AuditEntry,
): Promise<{ rewrapped: number; current: number }> {
  let rewrapped = 0;
  let current = 0;
  for (const id of (await store.all()).keys()) {
    let wrapped = false;
    await changeShop(store, id, async ({ stored }) => {
      const dataKey = DataKey.unwrap(keyring, id, stored.dataKey);
      wrapped = !stored.dataKey.startsWith(`v1.${keyring.active.id}.`);
      if (!wrapped) return undefined;
      return { stored: { ...stored, dataKey: dataKey.wrap(keyring, id) }, audit: audit() };
    });
    if (wrapped) rewrapped++;
    else current++;
  }
  return { rewrapped, current };
}
