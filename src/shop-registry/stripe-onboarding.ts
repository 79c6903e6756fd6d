import { randomBytes } from 'node:crypto';
import { AppError } from '../errors';
import type { ProviderDocument } from '../payments/provider-fields';
import { apiUrlUnlessOfficial } from '../payments/provider-hosts';
import type * as StripeConnect from '../payments/stripe/stripe-connect';
import { STRIPE_API } from '../payments/stripe/stripe-api';
import type { VendorAccounts } from '../payments/vendor-accounts';
import type { ConnectLink, ConnectLinkStore, RegistryStore } from './ports';
import type { ShopCredentials } from './shop-credentials';

/** Where Stripe sends the owner back after onboarding, and where an expired onboarding link goes. */
export const STRIPE_RETURN_PATH = '/connect/stripe/return';
export const STRIPE_REFRESH_PATH = '/connect/stripe/refresh';

/** The Stripe SDK is loaded only by a process that onboards a Stripe account. */
function stripeConnect(): typeof StripeConnect {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../payments/stripe/stripe-connect') as typeof StripeConnect;
}

export interface StripeOnboardingDeps {
  links: ConnectLinkStore;
  store: RegistryStore;
  credentials: ShopCredentials;
  vendor: VendorAccounts;
  publicUrl: string;
  clock: () => Date;
  /** The link under `key` while it is good; CONNECT_LINK_INVALID otherwise. */
  usable(key: string): Promise<ConnectLink>;
  /** Puts a taken link back for the time it has left (a connection that failed). */
  giveBack(key: string, link: ConnectLink): Promise<void>;
}

/** What the owner's return from Stripe shows. */
export type StripeReturn =
  | { outcome: 'connected'; shop: string; shopName: string }
  /** Stripe has not enabled charges yet: connected by Stripe's `account.updated`, later. */
  | { outcome: 'pending'; shopName: string; continueUrl: string };

function invalid(): AppError {
  return new AppError(
    'CONNECT_LINK_INVALID',
    'This link is unknown, was used already, or expired: ask for a new one.',
  );
}

/**
 * A shop's Stripe account as an Express account of the vendor's platform (CONTRACT "Connecting
 * a shop's provider account"): the link's button creates the account (one per link) and sends
 * the owner to Stripe's hosted onboarding; the shop is connected once Stripe says
 * `charges_enabled`, on the owner's return or by the Connect event `account.updated`, whichever
 * comes first. The link is used then, not before.
 */
export class StripeOnboarding {
  constructor(private readonly deps: StripeOnboardingDeps) {}

  private platform(): NonNullable<VendorAccounts['stripe']> {
    const platform = this.deps.vendor.stripe;
    if (!platform) throw invalid();
    return platform;
  }

  /** The time a link of `link` has left, for what waits on it. */
  private leftOf(link: ConnectLink): number {
    return Math.max(1, Date.parse(link.expiresAt) - this.deps.clock().getTime());
  }

  /** The link's button: the shop's Express account (made once per link), then its onboarding. */
  async start(key: string, link: ConnectLink): Promise<string> {
    const platform = this.platform();
    const entry = await this.deps.store.get(link.shop);
    if (!entry) throw invalid();
    const ttl = this.leftOf(link);
    // One account per link, however often and late its button is pressed: the account made first
    // is kept beside the link (Stripe's idempotency keys last 24 hours, a link 7 days).
    const made = await this.deps.links.getState(`link-account:${key}`);
    const account =
      made?.secret ??
      (await stripeConnect().createExpressAccount(
        platform,
        { id: link.shop, name: entry.stored.name },
        `connect-account:${key}`,
      ));
    if (!made) {
      await this.deps.links.putState(
        `link-account:${key}`,
        { link: key, secret: account, shop: link.shop },
        ttl,
      );
    }
    const state = randomBytes(24).toString('base64url');
    // The owner's return names the state; Stripe's event names the account: both lead here.
    const pending = { link: key, secret: account, shop: link.shop };
    await this.deps.links.putState(state, pending, ttl);
    await this.deps.links.putState(`account:${account}`, pending, ttl);
    return this.onboarding(platform, account, state);
  }

  private onboarding(
    platform: NonNullable<VendorAccounts['stripe']>,
    account: string,
    state: string,
  ): Promise<string> {
    const query = `?state=${encodeURIComponent(state)}`;
    return stripeConnect().onboardingLink(platform, {
      account,
      returnUrl: `${this.deps.publicUrl}${STRIPE_RETURN_PATH}${query}`,
      refreshUrl: `${this.deps.publicUrl}${STRIPE_REFRESH_PATH}${query}`,
    });
  }

  /** An onboarding link that expired or was used: a new one for the same account. */
  async refresh(state: string | undefined): Promise<string> {
    const pending = state ? await this.deps.links.getState(state) : undefined;
    if (!pending || !state) throw invalid();
    await this.deps.usable(pending.link);
    return this.onboarding(this.platform(), pending.secret, state);
  }

  /** The owner back from Stripe: connected when Stripe enabled charges, else pending. */
  async returned(state: string | undefined): Promise<StripeReturn> {
    const pending = state ? await this.deps.links.getState(state) : undefined;
    if (!pending || !state) throw invalid();
    const already = await this.connectedAlready(pending);
    if (already) return already;
    const link = await this.deps.usable(pending.link);
    const entry = await this.deps.store.get(link.shop);
    const shopName = entry?.stored.name ?? link.shop;
    if (!(await stripeConnect().chargesEnabled(this.platform(), pending.secret))) {
      return {
        outcome: 'pending',
        shopName,
        continueUrl: `${this.deps.publicUrl}${STRIPE_REFRESH_PATH}?state=${encodeURIComponent(state)}`,
      };
    }
    await this.connect(pending.link, pending.secret);
    await this.deps.links.takeState(state);
    return { outcome: 'connected', shop: link.shop, shopName };
  }

  /** The return of an owner whose account Stripe's event connected first: connected. */
  private async connectedAlready(pending: {
    secret: string;
    shop?: string;
  }): Promise<StripeReturn | undefined> {
    if (!pending.shop) return undefined;
    const entry = await this.deps.store.get(pending.shop);
    const provider = entry?.stored.provider as { name?: string; account?: string } | undefined;
    if (provider?.name !== 'stripe' || provider.account !== pending.secret) return undefined;
    return {
      outcome: 'connected',
      shop: pending.shop,
      shopName: entry?.stored.name ?? pending.shop,
    };
  }

  /**
   * A Connect event: an `account.updated` with charges enabled connects the shop whose link made
   * the account (once; later ones find no link). Answers the shop it connected, if any.
   */
  async accountUpdated(account: string, chargesEnabled: boolean): Promise<string | undefined> {
    if (!chargesEnabled) return undefined;
    const pending = await this.deps.links.getState(`account:${account}`);
    if (!pending) return undefined;
    return this.connect(pending.link, account).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'CONNECT_LINK_INVALID') return undefined;
      throw error;
    });
  }

  /**
   * A Connect event's type and account, verified with the Connect endpoint's secret;
   * WEBHOOK_SIGNATURE_INVALID when it does not verify (or no Stripe platform is configured).
   */
  verify(
    rawBody: Buffer,
    signature: string,
  ): { type: string; account: string | undefined; chargesEnabled: boolean | undefined } {
    const platform = this.deps.vendor.stripe;
    try {
      if (!platform) throw new Error('no Stripe platform');
      return stripeConnect().connectEvent(platform, rawBody, signature);
    } catch {
      throw new AppError(
        'WEBHOOK_SIGNATURE_INVALID',
        "The Stripe-Signature does not verify with the Connect endpoint's secret (STRIPE_CONNECT_WEBHOOK_SECRET).",
      );
    }
  }

  /** Stores the connected account on the link's shop and uses the link up. */
  private async connect(key: string, account: string): Promise<string> {
    const link = await this.deps.links.take(key);
    if (!link) throw invalid();
    const platform = this.platform();
    const provider = {
      name: 'stripe',
      connection: 'connect',
      account,
      connectedAt: this.deps.clock().toISOString(),
      ...apiUrlUnlessOfficial(STRIPE_API, platform.apiUrl),
    } as ProviderDocument;
    try {
      await this.deps.credentials.connect(
        link.shop,
        link.incarnation,
        provider,
        `connect:${link.by}`,
      );
    } catch (error) {
      await this.deps.giveBack(key, link);
      throw error;
    }
    await this.deps.links.takeState(`account:${account}`);
    return link.shop;
  }
}
