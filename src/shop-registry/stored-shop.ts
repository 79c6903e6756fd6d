import type { ProviderDocument } from '../payments/provider-fields';
import { randomBytes } from 'node:crypto';
import { DataKey, sealedKeyId, type Keyring } from '../secrets/secret-box';
import { secretMatcher } from '../secrets/token-match';
import { DOCUMENT_KEYS, documentFields, type ShopDocument } from './shop-document';
import { mapFields, type ShopField } from './shop-fields';

/** What the registry keeps of a shop besides its document. */
export interface StoredMeta {
  format: 1;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** New at every add (shop/shop-id.ts `shopScope`); absent in shops stored before incarnations. */
  incarnation?: string;
  /** The shop's data key, wrapped: `v1.<master key id>....`. */
  dataKey: string;
  /** Its provider refused to renew its connection for good; cleared by connecting again. */
  needsReconnect?: { since: string; reason: string };
  /** The route token as a keyed hash; the previous one accepted until `previousUntil`. */
  routeToken: { hash: string; rotatedAt: string; previousHash?: string; previousUntil?: string };
}

/**
 * A registry shop as Redis holds it (one JSON value per shop): its document with the secret
 * fields sealed with the shop's data key (src/secrets/secret-box.ts), the data key wrapped by a
 * master key. Nothing secret in it is readable without SHOP_SECRET_KEYS.
 */
export type StoredShop = ShopDocument & StoredMeta;

const DOCUMENT_PART: ReadonlySet<string> = new Set(['id', ...DOCUMENT_KEYS]);

/** A stored shop's document (its secrets as stored), without the registry's own keys. */
function documentOf(stored: StoredShop): ShopDocument {
  const entries = Object.entries(stored).filter(([key]) => DOCUMENT_PART.has(key));
  return Object.fromEntries(entries) as ShopDocument;
}

function secretFields(provider: ProviderDocument['name']): ShopField[] {
  return documentFields(provider).filter((field) => field.secret);
}

type DataKeys = { keyring: Keyring; dataKey: DataKey };

/** Seals a document's secrets with `dataKey`, each bound to its shop and field. */
export function sealShop(
  document: ShopDocument,
  { keyring, dataKey }: DataKeys,
  rest: Omit<StoredMeta, 'format' | 'dataKey'>,
): StoredShop {
  const { id } = document;
  const sealed = mapFields(document, secretFields(document.provider.name), (path, value) =>
    dataKey.seal(id, path, String(value)),
  );
  return { format: 1, ...sealed, dataKey: dataKey.wrap(keyring, id), ...rest };
}

/** `next` sealed in place of `current`'s document; `needsReconnect` kept only when given. */
export function resealShop(
  current: StoredShop,
  next: ShopDocument,
  keys: DataKeys,
  updatedAt: string,
  needsReconnect?: StoredShop['needsReconnect'],
): StoredShop {
  const { enabled, createdAt, routeToken, incarnation } = current;
  return sealShop(next, keys, {
    enabled,
    createdAt,
    updatedAt,
    routeToken,
    incarnation,
    ...(needsReconnect ? { needsReconnect } : {}),
  });
}

/** Opens a stored shop: its document in the clear and its data key. Throws SecretBoxError. */
export function openShop(stored: StoredShop, keyring: Keyring) {
  const { id } = stored;
  const dataKey = DataKey.unwrap(keyring, id, stored.dataKey);
  return {
    dataKey,
    document: mapFields(documentOf(stored), secretFields(stored.provider.name), (path, value) =>
      dataKey.open(id, path, String(value)),
    ),
  };
}

export function newIncarnation(): string {
  return randomBytes(6).toString('hex');
}

export function masterKeyIdOf(stored: StoredShop): string | undefined {
  return sealedKeyId(stored.dataKey);
}

/**
 * The shop's route token check: its current token, or its previous one until it lapses. Once the
 * current token matched, it is checked as the env shop's is (a SHA-256 digest compared in
 * constant time), cheaper than the HMAC: the platform presents the same token on every call. The
 * settings holding this are replaced when the shop changes; the previous token is always checked
 * in full, with the clock.
 */
export function routeTokenCheck(
  stored: StoredShop,
  dataKey: DataKey,
  clock: () => Date,
): (token: string | undefined) => boolean {
  const { id, routeToken } = stored;
  const { previousHash, previousUntil } = routeToken;
  let current: ((token: string | undefined) => boolean) | undefined;
  return (token) => {
    if (token === undefined) return false;
    if (current?.(token)) return true;
    if (dataKey.tokenMatches(id, token, routeToken.hash)) {
      current = secretMatcher(token);
      return true;
    }
    return (
      previousHash !== undefined &&
      previousUntil !== undefined &&
      clock().getTime() < Date.parse(previousUntil) &&
      dataKey.tokenMatches(id, token, previousHash)
    );
  };
}

/** The public face of a stored shop: its document without its secrets, no hash. */
export type ShopView = Record<string, unknown> &
  Pick<ShopDocument, 'id' | 'name'> & {
    enabled: boolean;
    platform: { email: string };
    provider: Record<string, string> & { name: string };
    created_at: string;
    updated_at: string;
    token_rotated_at: string;
    needs_reconnect?: StoredMeta['needsReconnect'];
  };

export function viewOf(stored: StoredShop): ShopView {
  const shown = mapFields(documentOf(stored), secretFields(stored.provider.name), () => undefined);
  return {
    ...shown,
    enabled: stored.enabled,
    created_at: stored.createdAt,
    updated_at: stored.updatedAt,
    token_rotated_at: stored.routeToken.rotatedAt,
    ...(stored.needsReconnect ? { needs_reconnect: stored.needsReconnect } : {}),
  } as unknown as ShopView;
}
