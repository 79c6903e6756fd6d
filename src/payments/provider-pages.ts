import type { Router } from 'express';
import type { PageStorefront } from '../html/page-layout';

/*
 * A provider's own pages (CONTRACT "Connect and a provider's own endpoints, safe by
 * construction"): a provider whose customers pay on a page the connector serves (the sandbox's,
 * the API Pix's QR code) declares it in its descriptor (`pages`); the HTTP layer mounts every
 * provider's pages from the list and hands each a way to find a checkout's shop, only among the
 * shops whose provider it is.
 */

/** Where a checkout stands, as a provider's page shows it. */
export type PageState = 'open' | 'paid' | 'closed';

/** A checkout's shop, as its provider's pages see it. */
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
  /** A banner every customer page shows, when the deployment needs one (the sandbox on staging). */
  pageNotice: string | undefined;
  /** The shop as its customer's pages show it. */
  storefront?: PageStorefront;
}

/** The shop a checkout id names, when its provider is the pages' own; undefined otherwise. */
export type FindPageShop<O> = (checkoutId: string) => Promise<PageShop<O> | undefined>;

/** A provider's own pages, as its descriptor declares them. */
export interface ProviderPages<O> {
  /** The paths their routes start with (`/pix`): public, rate-limited as customer pages. */
  paths: readonly string[];
  /** Their routes; a checkout id of another provider's shop is a 404 page. */
  routes(find: FindPageShop<O>, defaultNotice: string | undefined): Router;
}

/** Pages as the list mounts them, whatever their provider's own part. */
export interface DeclaredPages {
  paths: readonly string[];
  routes(find: FindPageShop<unknown>, defaultNotice: string | undefined): Router;
}

/**
 * A provider's pages, for its descriptor: the list finds a checkout's shop only among the shops
 * of that provider, so what the shop's module gave its pages is of the type they declare.
 */
export function definePages<O>(pages: ProviderPages<O>): DeclaredPages {
  return {
    paths: pages.paths,
    routes: (find, defaultNotice) => pages.routes(find as FindPageShop<O>, defaultNotice),
  };
}
