import type { ShopDocument } from './shop-document';
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
    | 'needs-reconnect'
    | 'restored';
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
  getMany(ids: readonly string[]): Promise<Map<string, ShopEntry>>;
  /** False when the id exists. */
  create(stored: StoredShop, audit: AuditEntry): Promise<boolean>;
  /** False when the shop's text is no longer `expected` (a concurrent change, or removed). */
  replace(expected: string, stored: StoredShop, audit: AuditEntry): Promise<boolean>;
  /** Removes the shop with its audit trail; `audit` goes to the registry's removals. */
  remove(expected: string, id: string, audit: AuditEntry): Promise<boolean>;
  audit(id: string, limit: number): Promise<AuditEntry[]>;
}

/** What the registry asks of a shop's platform account and provider before storing them. */
export interface CredentialCheck {
  /** Refusals by `platform` or `provider`; throws when a service could not be reached. */
  check(document: ShopDocument): Promise<Array<{ field: string; problem: string }>>;
  /**
   * What the provider needs once the shop is stored (the API Pix's webhook registered). Never
   * fails the change: what it could not do, the workers' pass does.
   */
  stored?(document: ShopDocument): Promise<void>;
}

/** A shop's data that removing it must respect. */
export interface ShopWork {
  /** Checkouts not yet reported (open, or their outcome undelivered) and failed deliveries. */
  openWork(scope: string): Promise<{ unreported: number; failed: number }>;
  /** Deletes every key of one incarnation of a shop's data (`scope`: `shopScope`). */
  purge(scope: string): Promise<void>;
  /** Its circuit breaker is kept under its id, whatever its incarnation. */
  forgetBreaker(shop: string): Promise<void>;
}
