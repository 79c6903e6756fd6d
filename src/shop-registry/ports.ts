import type { StoredShop } from './stored-shop';

/** One entry of a shop's audit trail: never a secret's value. */
export interface AuditEntry {
  at: string;
  /** The CLI's user (`cli:<user>`) or the admin token's fingerprint (`admin:<8 hex>`). */
  by: string;
  action:
    | 'added'
    | 'updated'
    | 'disabled'
    | 'enabled'
    | 'token-rotated'
    | 'rekeyed'
    | 'removed'
    | 'connected'
    | 'credential-renewed'
    | 'needs-reconnect';
  fields: string[];
}

/** A stored shop and the exact text it was read as (compare-and-set compares the text). */
export interface ShopEntry {
  stored: StoredShop;
  raw: string;
}

/**
 * The registry's storage. Every write is a compare-and-set on the shop's current text, writes
 * the audit entry with it, and bumps the registry's version, atomically.
 */
export interface RegistryStore {
  /** A number that changes with every write: the processes poll it. */
  version(): Promise<string>;
  all(): Promise<Map<string, ShopEntry>>;
  get(id: string): Promise<ShopEntry | undefined>;
  /** The entries of those of `ids` that are stored, in one read. */
  getMany(ids: readonly string[]): Promise<Map<string, ShopEntry>>;
  /** False when the id exists. */
  create(stored: StoredShop, audit: AuditEntry): Promise<boolean>;
  /** False when the shop's text is no longer `expected` (a concurrent change, or removed). */
  replace(expected: string, stored: StoredShop, audit: AuditEntry): Promise<boolean>;
  /**
   * Removes the shop and its audit trail together, and keeps `audit` (who removed it) in the
   * registry's removals, which no shop's trail shows; false as `replace`.
   */
  remove(expected: string, id: string, audit: AuditEntry): Promise<boolean>;
  audit(id: string, limit: number): Promise<AuditEntry[]>;
}

/** What the registry asks of a shop's platform account and provider before storing them. */
export interface CredentialCheck {
  /**
   * Problems with the credentials, as `{field, problem}` (`platform`, `provider`); empty when
   * both answered. Throws when a service could not be reached (nothing is stored then either).
   */
  check(
    document: import('./shop-document').ShopDocument,
  ): Promise<Array<{ field: string; problem: string }>>;
  /**
   * What the shop's provider needs once the shop is stored with these credentials (the API Pix's
   * webhook registered). Never fails the change: what it could not do, the workers' pass does.
   */
  stored?(document: import('./shop-document').ShopDocument): Promise<void>;
}

/** A shop's data that removing it must respect. */
export interface ShopWork {
  /** Checkouts not yet reported (open, or their outcome undelivered) and failed deliveries. */
  openWork(scope: string): Promise<{ unreported: number; failed: number }>;
  /**
   * Deletes every key of one incarnation of a shop's data (checkouts, sandbox payments, sync
   * ledger): `scope` as src/infra/keyspace.ts `shopScope` makes it.
   */
  purge(scope: string): Promise<void>;
  /** Deletes the shop's circuit breaker (kept under its id, whatever its incarnation). */
  forgetBreaker(shop: string): Promise<void>;
}

/** A link a shop's owner follows to connect the shop's provider account (CONTRACT "Connecting"). */
export interface ConnectLink {
  shop: string;
  /** The shop it was made for: a link of a removed shop opens nothing of one added since. */
  incarnation: string;
  provider: string;
  createdAt: string;
  expiresAt: string;
  /** Who made it (`cli:<user>`, `admin:<fingerprint>`). */
  by: string;
}

/**
 * What a connection under way keeps between the owner's click and the provider's callback, under
 * the SHA-256 of its `state` (CONTRACT "Connect and a provider's own endpoints, safe by
 * construction"): what it is for, so a callback takes only a state of its own purpose and
 * provider, and the browser it is bound to.
 */
export interface ConnectState {
  /** What the state is for: a callback of another purpose finds no state. */
  purpose: ConnectPurpose;
  /** The provider the flow connects (the link's). */
  provider: string;
  /** The link's key (its token's hash): taken when the connection completes. */
  link: string;
  /** The shop the link is for. */
  shop: string;
  /** The SHA-256 of the nonce in the cookie of the browser that pressed the link's button. */
  browser: string;
  /** A secret of the flow (the PKCE verifier), sealed with the shop's data key. */
  sealed?: string;
  /** The provider account the flow made for the shop (Stripe's Express account). */
  account?: string;
}

/** The purposes a `state` is issued for, each of one provider. */
export type ConnectPurpose = 'mercadopago-oauth' | 'stripe-onboarding';

/** An account a connection under way made at its provider, found by that provider's events. */
export interface PendingAccount {
  link: string;
  shop: string;
  account: string;
}

/**
 * The links, by the SHA-256 of their token (Redis never holds a usable link), the connections
 * under way, by the SHA-256 of their `state`, and the accounts they made, by the provider and the
 * SHA-256 of the account id (no account id in a key name). Each lapses by itself (Redis TTLs).
 */
export interface ConnectLinkStore {
  put(key: string, link: ConnectLink, ttlMs: number): Promise<void>;
  get(key: string): Promise<ConnectLink | undefined>;
  /** Reads and deletes at once: a link is used once. */
  take(key: string): Promise<ConnectLink | undefined>;
  putState(hash: string, value: ConnectState, ttlMs: number): Promise<void>;
  getState(hash: string): Promise<ConnectState | undefined>;
  takeState(hash: string): Promise<ConnectState | undefined>;
  /** The account made for a link (one per link, however often its button is pressed). */
  putLinkAccount(linkKey: string, account: PendingAccount, ttlMs: number): Promise<void>;
  getLinkAccount(linkKey: string): Promise<PendingAccount | undefined>;
  /** A pending account by the provider and its id, for that provider's events. */
  putPendingAccount(provider: string, account: PendingAccount, ttlMs: number): Promise<void>;
  getPendingAccount(provider: string, account: string): Promise<PendingAccount | undefined>;
  dropPendingAccount(provider: string, account: string): Promise<void>;
  /** Counts one refusal by the provider of a link's data; answers the count within `windowMs`. */
  countRefusal(linkKey: string, windowMs: number): Promise<number>;
  /** The refusals counted for the link within the window. */
  refusals(linkKey: string): Promise<number>;
}

/** A per-shop lock in Redis: one renewal of a shop's credential at a time, in all processes. */
export interface RenewLock {
  /** True when `owner` now holds the shop's lock (for `ttlMs` at most). */
  acquire(shop: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Releases the lock if `owner` still holds it. */
  release(shop: string, owner: string): Promise<void>;
  /** Whether anyone holds the shop's lock now. */
  held(shop: string): Promise<boolean>;
}
