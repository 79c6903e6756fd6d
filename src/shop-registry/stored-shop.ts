import type { ProviderDocument } from '../payments/provider-fields';
import { randomBytes } from 'node:crypto';
import { DataKey, sealedKeyId, type Keyring } from '../secrets/secret-box';
import { secretMatcher } from '../secrets/token-match';
import { documentFields, type ShopDocument } from './shop-document';
import { mapFields, type ShopField } from './shop-fields';

/** What the registry keeps of a shop besides its document. */
export interface StoredMeta {
  format: 1;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * Which shop of this id it is: new at every add, in every key of its data and every job of it
   * (src/infra/keyspace.ts `shopScope`), so a shop added again after a removal starts empty.
   * Absent in shops stored before incarnations existed: their data keys have none.
   */
  incarnation?: string;
  /** The shop's data key, wrapped: `v1.<master key id>....`. */
  dataKey: string;
  /**
   * Its provider refused to renew its connected credential for good (a revoked grant): set by
   * the renewal, cleared by connecting again. Absent in shops stored before connections.
   */
  needsReconnect?: { since: string; reason: string };
  routeToken: {
    hash: string;
    rotatedAt: string;
    /** The token before the last rotation, accepted until `previousUntil`. */
    previousHash?: string;
    previousUntil?: string;
  };
}

/**
 * A registry shop as Redis holds it (one JSON value per shop): its document, with the secret
 * fields (the field table's, `documentFields`) sealed with the shop's data key
 * (src/secrets/secret-box.ts), the data key wrapped by a master key, the route token only as a
 * keyed hash. Nothing secret in it is readable without SHOP_SECRET_KEYS.
 */
export type StoredShop = ShopDocument & StoredMeta;

/** A stored shop's document (its secrets as stored), without the registry's own keys. */
function documentOf(stored: StoredShop): ShopDocument {
  const {
    format: _format,
    enabled: _enabled,
    createdAt: _createdAt,
    updatedAt: _updatedAt,
    incarnation: _incarnation,
    dataKey: _dataKey,
    routeToken: _routeToken,
    needsReconnect: _needsReconnect,
    ...document
  } = stored;
  return document;
}

/** The secret fields of a shop of `provider`. */
function secretFields(provider: ProviderDocument['name']): ShopField[] {
  return documentFields(provider).filter((field) => field.secret);
}

/** Seals a document's secrets with `dataKey`, each bound to its shop and field. */
export function sealShop(
  document: ShopDocument,
  keys: { keyring: Keyring; dataKey: DataKey },
  rest: Pick<
    StoredShop,
    'enabled' | 'createdAt' | 'updatedAt' | 'routeToken' | 'incarnation' | 'needsReconnect'
  >,
): StoredShop {
  const { keyring, dataKey } = keys;
  const { id } = document;
  const sealed = mapFields(document, secretFields(document.provider.name), (path, value) =>
    dataKey.seal(id, path, String(value)),
  );
  return { format: 1, ...sealed, dataKey: dataKey.wrap(keyring, id), ...rest };
}

/**
 * A stored shop's next text: `next` sealed with its data key, its registry keys kept, changed
 * at `updatedAt`; `needsReconnect` kept only when given (a change of provider clears it).
 */
export function resealShop(
  current: StoredShop,
  next: ShopDocument,
  keys: { keyring: Keyring; dataKey: DataKey },
  updatedAt: string,
  needsReconnect?: StoredShop['needsReconnect'],
): StoredShop {
  return sealShop(next, keys, {
    enabled: current.enabled,
    createdAt: current.createdAt,
    updatedAt,
    routeToken: current.routeToken,
    incarnation: current.incarnation,
    ...(needsReconnect ? { needsReconnect } : {}),
  });
}

/** Opens a stored shop: its document in the clear and its data key. Throws SecretBoxError. */
export function openShop(
  stored: StoredShop,
  keyring: Keyring,
): { document: ShopDocument; dataKey: DataKey } {
  const { id } = stored;
  const dataKey = DataKey.unwrap(keyring, id, stored.dataKey);
  return {
    dataKey,
    document: mapFields(documentOf(stored), secretFields(stored.provider.name), (path, value) =>
      dataKey.open(id, path, String(value)),
    ),
  };
}

/** A new shop's incarnation: 12 hex digits, never the same twice for one id in practice. */
export function newIncarnation(): string {
  return randomBytes(6).toString('hex');
}

/** The master key id that wraps a stored shop's data key. */
export function masterKeyIdOf(stored: StoredShop): string | undefined {
  return sealedKeyId(stored.dataKey);
}

/** Whether `token` is the shop's previous route token, still within its window after a rotation. */
function previousTokenMatches(
  stored: StoredShop,
  dataKey: DataKey,
  token: string,
  now: Date,
): boolean {
  const { previousHash, previousUntil } = stored.routeToken;
  return (
    previousHash !== undefined &&
    previousUntil !== undefined &&
    now.getTime() < Date.parse(previousUntil) &&
    dataKey.tokenMatches(stored.id, token, previousHash)
  );
}

/**
 * The shop's route token check: its current token, or its previous one until it lapses. Once
 * the current token matched, it is checked again as the env shop's is (a SHA-256 digest compared
 * in constant time) rather than with the shop's HMAC: the platform presents the same token on
 * every call. The settings this belongs to are replaced when the shop changes (a rotation, a
 * revocation); the previous token is always checked in full, with the clock.
 */
export function routeTokenCheck(
  stored: StoredShop,
  dataKey: DataKey,
  clock: () => Date,
): (token: string | undefined) => boolean {
  let current: ((token: string | undefined) => boolean) | undefined;
  return (token) => {
    if (token === undefined) return false;
    if (current?.(token)) return true;
    if (dataKey.tokenMatches(stored.id, token, stored.routeToken.hash)) {
      current = secretMatcher(token);
      return true;
    }
    return previousTokenMatches(stored, dataKey, token, clock());
  };
}

/** The public face of a stored shop: its document without its secrets, no hash. */
export type ShopView = Record<string, unknown> & {
  id: string;
  name: string;
  enabled: boolean;
  platform: { email: string };
  provider: Record<string, string> & { name: string };
  created_at: string;
  updated_at: string;
  token_rotated_at: string;
  /** Present (false) when this deployment does not serve the shop as stored; `problem` says why. */
  served?: false;
  problem?: string;
  /** Present when its provider refused to renew its connection: a new link fixes it. */
  needs_reconnect?: { since: string; reason: string };
};

export function viewOf(stored: StoredShop): ShopView {
  // Every secret left out.
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
