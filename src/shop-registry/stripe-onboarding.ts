import { AppError } from '../errors';
import type { ProviderDocument } from '../payments/provider-fields';
import { apiUrlUnlessOfficial } from '../payments/provider-hosts';
import type * as StripeConnect from '../payments/stripe/stripe-connect';
import { STRIPE_API } from '../payments/stripe/stripe-api';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { invalidLink, type ConnectStates } from './connect-states';
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
  states: ConnectStates;
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

/** What an `account.updated` did. */
export type AccountUpdate =
  | { outcome: 'connected'; shop: string }
  /** Stripe disabled the charges of a connected shop's account: the shop must connect again. */
  | { outcome: 'needs-reconnect'; shop: string }
  | { outcome: 'nothing' };

/**
 * A shop's Stripe account as an Express account of the vendor's platform (CONTRACT "Connecting
 * a shop's provider account"): the link's button creates the account (one per link) and sends
 * the owner to Stripe's hosted onboarding; the shop is connected once Stripe says
 * `charges_enabled`, on the owner's return (in the browser that pressed the button) or by the
 * Connect event `account.updated`, whichever comes first. The link is used then, not before.
 * The owner's return and refresh carry a state of purpose `stripe-onboarding`, never an account.
 */
export class StripeOnboarding {
  constructor(private readonly deps: StripeOnboardingDeps) {}

  private platform(): NonNullable<VendorAccounts['stripe']> {
    const platform = this.deps.vendor.stripe;
    if (!platform) throw invalidLink();
    return platform;
  }

  /** The time a link of `link` has left, for what waits on it. */
  private leftOf(link: ConnectLink): number {
    return Math.max(1, Date.parse(link.expiresAt) - this.deps.clock().getTime());
  }

  /** The link's button: the shop's Express account (made once per link), then its onboarding. */
  async start(key: string, link: ConnectLink, browser: string): Promise<string> {
    const platform = this.platform();
    const entry = await this.deps.store.get(link.shop);
    if (!entry) throw invalidLink();
    const ttl = this.leftOf(link);
    // One account per link, however often and late its button is pressed: the account made first
    // is kept beside the link (Stripe's idempotency keys last 24 hours, a link 7 days).
    const made = await this.deps.links.getLinkAccount(key);
    const account =
      made?.account ??
      (await stripeConnect().createExpressAccount(
        platform,
        { id: link.shop, name: entry.stored.name },
        `connect-account:${key}`,
      ));
    const pending = { link: key, shop: link.shop, account };
    if (!made) await this.deps.links.putLinkAccount(key, pending, ttl);
    // Stripe's event names the account; the owner's return names the state.
    await this.deps.links.putPendingAccount('stripe', pending, ttl);
    const state = await this.deps.states.issue(
      { purpose: 'stripe-onboarding', link: { key, value: link }, browser, account },
      ttl,
    );
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
  async refresh(state: string | undefined, browser: string | undefined): Promise<string> {
    const checked = await this.deps.states.check(state, 'stripe-onboarding', browser);
    const account = checked.state.account;
    if (!account || !state) throw invalidLink();
    await this.deps.usable(checked.state.link);
    return this.onboarding(this.platform(), account, state);
  }

  /** The owner back from Stripe: connected when Stripe enabled charges, else pending. */
  async returned(state: string | undefined, browser: string | undefined): Promise<StripeReturn> {
    const checked = await this.deps.states.check(state, 'stripe-onboarding', browser);
    const { account, shop, link: key } = checked.state;
    if (!account || !state) throw invalidLink();
    const entry = await this.deps.store.get(shop);
    const provider = entry?.stored.provider as { name?: string; account?: string } | undefined;
    if (entry && provider?.name === 'stripe' && provider.account === account) {
      // Stripe's event connected it first.
      await this.deps.states.take(checked);
      return { outcome: 'connected', shop, shopName: entry.stored.name };
    }
    const link = await this.deps.usable(key);
    const shopName = entry?.stored.name ?? link.shop;
    if (!(await stripeConnect().chargesEnabled(this.platform(), account))) {
      return {
        outcome: 'pending',
        shopName,
        continueUrl: `${this.deps.publicUrl}${STRIPE_REFRESH_PATH}?state=${encodeURIComponent(state)}`,
      };
    }
    await this.connect(key, account);
    await this.deps.states.take(checked);
    return { outcome: 'connected', shop: link.shop, shopName };
  }

  /**
   * A Connect event, verified: an `account.updated` with charges enabled connects the shop whose
   * link made the account (once; later ones find no link); with charges disabled, the shop
   * connected to the account is marked needs_reconnect, as a refused renewal is.
   */
  async accountUpdated(
    account: string,
    chargesEnabled: boolean | undefined,
  ): Promise<AccountUpdate> {
    if (chargesEnabled === undefined) return { outcome: 'nothing' };
    if (!chargesEnabled) {
      const shop = await this.deps.credentials.connectedTo('stripe', account);
      if (!shop) return { outcome: 'nothing' };
      const marked = await this.deps.credentials.needsReconnect(
        shop,
        'Stripe disabled the charges of the connected account',
      );
      return marked ? { outcome: 'needs-reconnect', shop } : { outcome: 'nothing' };
    }
    const pending = await this.deps.links.getPendingAccount('stripe', account);
    if (!pending) return { outcome: 'nothing' };
    const shop = await this.connect(pending.link, account).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'CONNECT_LINK_INVALID') return undefined;
      throw error;
    });
    return shop ? { outcome: 'connected', shop } : { outcome: 'nothing' };
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
    if (!link) throw invalidLink();
    if (link.provider !== 'stripe') {
      await this.deps.giveBack(key, link);
      throw invalidLink();
    }
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
    await this.deps.links.dropPendingAccount('stripe', account);
    return link.shop;
  }
}
