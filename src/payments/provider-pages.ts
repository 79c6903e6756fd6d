import type { RequestHandler } from 'express';
import type { PageStorefront } from '../html/page-layout';

/*
 * A provider's own pages (CONTRACT "Connect and a provider's own endpoints, safe by
 * construction"): a provider whose customers pay on a page the connector serves (the sandbox's,
 * the API Pix's QR code) declares it in its descriptor (`pages`); the HTTP layer mounts them all
 * from the list, each finding a checkout's shop only among its own provider's shops.
 */

/** Where a checkout stands, as a provider's page shows it. */
export type PageState = 'open' | 'paid' | 'closed';

export interface PageShop<O> {
  /** What the shop's provider module gave its pages (its module's `pages`). */
  own: O;
  /** Where the checkout stands, as recorded. */
  stateOf(checkoutId: string): Promise<PageState | undefined>;
  /**
   * Something may have changed for this checkout at the provider (a button on the sandbox's
   * page, a customer waiting on the Pix page): read the truth and record it, as a webhook would.
   */
  hint(checkoutId: string): Promise<void>;
  pageNotice: string | undefined;
  storefront?: PageStorefront;
}

/** The shop a checkout id names, when its provider is the pages' own; undefined otherwise. */
export type FindPageShop<O> = (checkoutId: string) => Promise<PageShop<O> | undefined>;

/**
 * One route of a provider's pages: its exact path and the handler of each method it serves. The
 * HTTP layer mounts it (exact paths; any other method a 405 with `Allow`).
 */
export interface PageRoute {
  path: string;
  get?: PageHandler;
  post?: PageHandler;
}

/** A handler of a provider's page: its path names the checkout (`:checkoutId`), or nothing. */
export type PageHandler = RequestHandler<{ checkoutId: string }>;

export interface ProviderPages<O> {
  /** The paths their routes start with (`/pix`): public, rate-limited as customer pages. */
  paths: readonly string[];
  /** Their routes; a checkout id of another provider's shop is a 404 page. */
  routes(find: FindPageShop<O>, defaultNotice: string | undefined): readonly PageRoute[];
}

/** Pages as the list mounts them, whatever their provider's own part. */
export type DeclaredPages = ProviderPages<unknown>;

/**
 * A provider's pages, for its descriptor: the list finds a checkout's shop only among the shops
 * of that provider, so what the shop's module gave its pages is of the type they declare.
 */
export function definePages<O>(pages: ProviderPages<O>): DeclaredPages {
  return pages as DeclaredPages;
}
