import { AppError } from '../errors';
import {
  authorizationUrl,
  exchangeCode,
  pkcePair,
} from '../payments/mercadopago/mercadopago-oauth';
import { MERCADOPAGO_API } from '../payments/mercadopago/mercadopago-api';
import type { Keyring } from '../secrets/secret-box';
import type { StoredShop } from './stored-shop';
import { AsaasOnboarding } from './asaas-onboarding';
import { StripeOnboarding } from './stripe-onboarding';
import { ConnectStates, hashOf, invalidLink, randomValue } from './connect-states';
import { apiUrlUnlessOfficial } from '../payments/provider-hosts';
import type { ProviderDocument } from '../payments/provider-fields';
import { PROVIDERS, type ProviderName } from '../payments/providers';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { ENV_SHOP_ID } from '../shop/shop-id';
import type { ConnectLink, ConnectLinkStore, RegistryStore } from './ports';
import type { ShopCredentials } from './shop-credentials';

export { invalidLink } from './connect-states';

/** How long a link works (CONTRACT: 7 days). */
export const LINK_TTL_MS = 7 * 86_400_000;

/** How long the owner has between the link's button and the provider's callback. */
const STATE_TTL_MS = 30 * 60_000;

/** The callback Mercado Pago sends the owner back to; the vendor's application lists it. */
export const MERCADOPAGO_CALLBACK_PATH = '/connect/mercadopago/callback';

/** The providers a link can connect, in the order the CLI lists them. */
export const CONNECTABLE: readonly ProviderName[] = ['mercadopago', 'asaas', 'stripe'];

/** What each connectable provider needs set in the deployment. */
const VENDOR_VARIABLES: Record<string, string> = {
  mercadopago: 'MERCADOPAGO_CLIENT_ID, MERCADOPAGO_CLIENT_SECRET and MERCADOPAGO_WEBHOOK_SECRET',
  asaas: 'ASAAS_ROOT_API_KEY',
  stripe: 'STRIPE_CONNECT_SECRET_KEY and STRIPE_CONNECT_WEBHOOK_SECRET',
};

export interface ConnectLinksDeps {
  links: ConnectLinkStore;
  log?: { error(message: string, fields?: Record<string, unknown>): unknown };
  store: RegistryStore;
  credentials: ShopCredentials;
  vendor: VendorAccounts;
  keyring: Keyring | undefined;
  publicUrl: string;
  clock: () => Date;
}

/** What the link's page shows. */
export interface LinkPage {
  shop: string;
  shopName: string;
  provider: ProviderName;
  providerLabel: string;
  expiresAt: string;
}

/** A link's key in Redis: its token's SHA-256, never the token. */
export const keyOf = hashOf;

/** A link's page: its shop, named, and its provider. */
function pageOf(link: ConnectLink, shopName: string): LinkPage {
  const provider = link.provider as ProviderName;
  return {
    shop: link.shop,
    shopName,
    provider,
    providerLabel: PROVIDERS[provider].label,
    expiresAt: link.expiresAt,
  };
}

/**
 * The links a vendor sends a shop's owner to connect the shop's provider account without
 * pasted keys (CONTRACT "Connecting a shop's provider account"): made for one shop and one
 * provider, good for 7 days and for one connection. Redis holds only each token's hash.
 */
export class ConnectLinks {
  /** Stripe's onboarding of an Express account, with this class's links. */
  readonly stripe: StripeOnboarding;
  /** Asaas's subaccounts, made from the link's form or the admin API's body. */
  readonly asaas: AsaasOnboarding;
  private readonly states: ConnectStates;

  constructor(private readonly deps: ConnectLinksDeps) {
    this.states = new ConnectStates(deps);
    const flow = {
      ...deps,
      states: this.states,
      usable: (key: string) => this.usable(key),
      giveBack: (key: string, link: ConnectLink) => this.giveBack(key, link),
    };
    this.stripe = new StripeOnboarding(flow);
    this.asaas = new AsaasOnboarding(flow);
  }

  /** Whether the deployment's PUBLIC_URL is https (the browser's cookie is then `__Host-`). */
  get secure(): boolean {
    return this.deps.publicUrl.startsWith('https:');
  }

  /** Whether this deployment can connect `provider` (its vendor account's variables are set). */
  canConnect(provider: string): provider is ProviderName {
    // The vendor's accounts are named as the providers they connect.
    return (
      (CONNECTABLE as readonly string[]).includes(provider) &&
      this.deps.vendor[provider as keyof VendorAccounts] !== undefined
    );
  }

  /** Where the link's button may send the owner's browser: the providers' authorization pages. */
  authorizationOrigins(): string[] {
    const { mercadopago, stripe } = this.deps.vendor;
    return [
      ...(mercadopago ? [new URL(mercadopago.authUrl).origin] : []),
      // Stripe's hosted onboarding (connect.stripe.com), or a fake's own host in tests.
      ...(stripe ? ['https://connect.stripe.com', new URL(stripe.apiUrl).origin] : []),
    ];
  }

  /** A new link for the shop: its URL, once, and when it lapses. */
  async create(
    shop: string,
    provider: string,
    by: string,
  ): Promise<{ url: string; expires_at: string }> {
    if (shop === ENV_SHOP_ID) {
      throw new AppError(
        'VALIDATION_FAILED',
        'The env shop is set by variables: it cannot be connected.',
        {
          details: [
            {
              field: 'shop',
              problem: 'is the env shop; add the shop to the registry to connect it',
            },
          ],
        },
      );
    }
    if (!(CONNECTABLE as readonly string[]).includes(provider)) {
      throw new AppError('VALIDATION_FAILED', 'That provider cannot be connected by a link.', {
        details: [{ field: 'provider', problem: `must be ${CONNECTABLE.join(' or ')}` }],
      });
    }
    if (!this.canConnect(provider)) {
      throw new AppError(
        'CONNECT_NOT_CONFIGURED',
        `This deployment has no ${PROVIDERS[provider as ProviderName].label} account to connect shops with: set ${VENDOR_VARIABLES[provider] ?? 'its variables'}.`,
      );
    }
    const entry = await this.deps.store.get(shop);
    if (!entry) throw new AppError('SHOP_NOT_FOUND', `No shop ${shop} in the registry.`);
    await this.deps.credentials.precheck(shop, entry.stored.incarnation ?? '', provider);
    const token = randomValue();
    const now = this.deps.clock();
    const link: ConnectLink = {
      shop,
      incarnation: entry.stored.incarnation ?? '',
      provider,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + LINK_TTL_MS).toISOString(),
      by,
    };
    await this.deps.links.put(keyOf(token), link, LINK_TTL_MS);
    return { url: `${this.deps.publicUrl}/connect/${token}`, expires_at: link.expiresAt };
  }

  /** The link as its page shows it; CONNECT_LINK_INVALID when it is unknown, used or expired. */
  async page(token: string): Promise<LinkPage> {
    const link = await this.usable(keyOf(token));
    const entry = await this.deps.store.get(link.shop);
    return pageOf(link, entry?.stored.name ?? link.shop);
  }

  /**
   * Puts a link taken for a connection back, for the time it has left: the connection failed,
   * and the owner may follow the same link again.
   */
  async giveBack(key: string, link: ConnectLink): Promise<void> {
    const left = Date.parse(link.expiresAt) - this.deps.clock().getTime();
    if (left > 0) await this.deps.links.put(key, link, left);
  }

  /** A link still good: not lapsed, its shop still the one it was made for. */
  async usable(key: string): Promise<ConnectLink> {
    const link = await this.deps.links.get(key);
    if (!link || Date.parse(link.expiresAt) <= this.deps.clock().getTime()) throw invalidLink();
    const entry = await this.deps.store.get(link.shop);
    if (!entry || (entry.stored.incarnation ?? '') !== link.incarnation) throw invalidLink();
    if (!this.canConnect(link.provider)) throw invalidLink();
    return link;
  }

  private redirectUri(): string {
    return `${this.deps.publicUrl}${MERCADOPAGO_CALLBACK_PATH}`;
  }

  /**
   * The link's button pressed in the browser whose cookie holds `browser`: where the browser goes
   * to authorize the vendor's application (Mercado Pago's OAuth with PKCE; the verifier, sealed,
   * and the link wait under a state bound to that browser), or Stripe's onboarding.
   */
  async start(token: string, browser: string): Promise<string> {
    const key = keyOf(token);
    const link = await this.usable(key);
    await this.deps.credentials.precheck(
      link.shop,
      link.incarnation,
      link.provider as ProviderName,
    );
    if (link.provider === 'stripe') return this.stripe.start(key, link, browser);
    const application = this.deps.vendor.mercadopago;
    if (link.provider !== 'mercadopago' || !application) throw invalidLink();
    const { verifier, challenge } = pkcePair();
    const state = await this.states.issue(
      { purpose: 'mercadopago-oauth', link: { key, value: link }, browser, secret: verifier },
      STATE_TTL_MS,
    );
    return authorizationUrl(application, { redirectUri: this.redirectUri(), state, challenge });
  }

  /**
   * Mercado Pago's callback in the browser whose cookie holds `browser`: the code exchanged
   * (with the verifier its state keeps), the owner's tokens stored on the shop, and the link
   * used up. A state of another purpose or browser changes nothing; a link whose exchange failed
   * works again.
   */
  async finish(
    query: { code?: string; state?: string; error?: string },
    browser: string | undefined,
  ): Promise<{ outcome: 'connected'; page: LinkPage } | { outcome: 'cancelled' }> {
    const checked = await this.states.check(query.state, 'mercadopago-oauth', browser);
    if (!(await this.states.take(checked))) throw invalidLink();
    if (query.error !== undefined || !query.code) return { outcome: 'cancelled' };
    const { link: linkKey } = checked.state;
    const link = await this.deps.links.take(linkKey);
    if (!link || Date.parse(link.expiresAt) <= this.deps.clock().getTime()) throw invalidLink();
    const application = this.deps.vendor.mercadopago;
    try {
      if (!application || link.provider !== 'mercadopago' || checked.secret === undefined) {
        throw invalidLink();
      }
      await this.deps.credentials.precheck(link.shop, link.incarnation, 'mercadopago');
      const grant = await exchangeCode(
        application,
        { code: query.code, verifier: checked.secret, redirectUri: this.redirectUri() },
        this.deps.clock,
      );
      const provider = {
        name: 'mercadopago',
        connection: 'oauth',
        account: grant.account,
        connectedAt: this.deps.clock().toISOString(),
        expiresAt: grant.expiresAt,
        accessToken: grant.accessToken,
        refreshToken: grant.refreshToken,
        publicKey: grant.publicKey,
        ...apiUrlUnlessOfficial(MERCADOPAGO_API, application.apiUrl),
      } as ProviderDocument;
      const stored = await this.deps.credentials.connect(
        link.shop,
        link.incarnation,
        provider,
        `connect:${link.by}`,
      );
      return { outcome: 'connected', page: pageOf(link, stored.name) };
    } catch (error) {
      // Nothing connected: the owner may follow the same link again while it lasts.
      await this.giveBack(linkKey, link);
      throw error;
    }
  }

  /** The Asaas link's form: the shop's subaccount (AsaasOnboarding), and the page it shows. */
  async connectAsaas(token: string, input: unknown): Promise<LinkPage> {
    const link = await this.asaas.connect(keyOf(token), input);
    const entry = await this.deps.store.get(link.shop);
    return pageOf(link, entry?.stored.name ?? link.shop);
  }

  /** The admin API's `account` body: the shop's subaccount created at once, no link. */
  async connectAsaasNow(shop: string, input: unknown, by: string): Promise<StoredShop> {
    if (!this.canConnect('asaas')) {
      throw new AppError(
        'CONNECT_NOT_CONFIGURED',
        `This deployment has no Asaas account to connect shops with: set ${VENDOR_VARIABLES.asaas}.`,
      );
    }
    return this.asaas.connectNow(shop, input, by);
  }
}
