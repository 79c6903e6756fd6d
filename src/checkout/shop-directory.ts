import type { CheckoutDeps } from './checkout-deps';

/** What a shop's collaborators say of the shop itself: which one it is, and whether it opens. */
export interface ShopIdentity {
  id: string;
  /** Which shop of this id it is ('' for the env shop and shops stored before incarnations). */
  incarnation: string;
  /** A disabled shop takes no new checkout; what it has in flight still completes. */
  enabled: boolean;
  /** Whether a presented route token is this shop's (compared in constant time). */
  tokenMatches(token: string | undefined): boolean;
  /** Set while its provider account must be connected again: it takes no new checkout. */
  needsReconnect?: { since: string; reason: string };
}

export interface ShopCollaborators {
  settings: ShopIdentity;
  deps: CheckoutDeps;
}

/**
 * Whether a job's shop is still the one that queued it, as stored now: `served`; `gone` (removed,
 * or removed and added again: another incarnation); `unserved` (stored, but it does not open
 * here, or the env shop without its variables).
 */
export type JobShopVerdict = 'served' | 'gone' | 'unserved';

/**
 * Which shop, and which collaborators: the one answer HTTP, the workers and the reconciler ask
 * for, by shop id, by checkout id (the id names its shop) or for a job. `Shop` is what the
 * composition root builds for each shop (main/'s ShopRuntime); a consumer names the part it uses,
 * and takes only the methods it calls (`Pick<ShopDirectory<...>, 'byId'>`).
 */
export interface ShopDirectory<Shop = ShopCollaborators> {
  /** The shop as it is stored now (one read): a change made by any process is honoured at once. */
  byId(id: string): Promise<Shop | undefined>;
  /** The shop a checkout id names, as it is stored now; undefined for an id that names none. */
  byCheckout(checkoutId: string): Promise<Shop | undefined>;
  /**
   * The shop as this process last saw it, without a read: for the rate limiter and the front
   * door's choice, and for a job once `forJob` found its shop served; never for an answer.
   */
  cached(id: string): Shop | undefined;
  forJob(id: string, incarnation: string): Promise<JobShopVerdict>;
  /** Deletes whatever a gone incarnation's work left under its keys. */
  purge(id: string, incarnation: string): Promise<void>;
  ids(): readonly string[];
}
