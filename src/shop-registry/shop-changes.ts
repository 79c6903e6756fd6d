import { AppError } from '../errors';
import type { AuditEntry, RegistryStore, ShopEntry } from './ports';
import type { StoredShop } from './stored-shop';

/** Compare-and-set attempts before a change gives up on a shop that keeps changing. */
const CAS_TRIES = 5;

/** The registry's shop connected to `account` at `provider`, if one is (a scan of the registry). */
export async function shopConnectedTo(
  store: RegistryStore,
  provider: string,
  account: string,
): Promise<string | undefined> {
  for (const [id, { stored }] of await store.all()) {
    const connected = stored.provider as { name?: string; account?: string };
    if (connected.name === provider && connected.account === account) return id;
  }
  return undefined;
}

/** The shop's record as stored now; SHOP_NOT_FOUND when there is none. */
export async function shopEntry(store: RegistryStore, id: string): Promise<ShopEntry> {
  const found = await store.get(id);
  if (!found) throw new AppError('SHOP_NOT_FOUND', `No shop ${id} in the registry.`);
  return found;
}

/**
 * Applies `change` to the shop's current record with compare-and-set, trying again when
 * another process changed it meanwhile; `change` answers undefined for nothing to change.
 */
export async function changeShop(
  store: RegistryStore,
  id: string,
  change: (entry: ShopEntry) => Promise<{ stored: StoredShop; audit: AuditEntry } | undefined>,
): Promise<StoredShop> {
  for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
    const current = await shopEntry(store, id);
    const next = await change(current);
    if (!next) return current.stored;
    if (await store.replace(current.raw, next.stored, next.audit)) return next.stored;
  }
  throw new AppError('SHOP_CHANGED', `Shop ${id} kept changing; try again.`);
}
