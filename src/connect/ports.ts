import type { PendingAccount } from '../payments/connect-flow';

export type { PendingAccount } from '../payments/connect-flow';

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
  /** What the state is for (its flow's `purpose`): a callback of another finds no state. */
  purpose: string;
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
