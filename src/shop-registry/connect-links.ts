import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors';
import {
  authorizationUrl,
  exchangeCode,
  pkcePair,
} from '../payments/mercadopago/mercadopago-oauth';
import { MERCADOPAGO_API } from '../payments/mercadopago/mercadopago-api';
import { ASAAS_API } from '../payments/asaas/asaas-api';
import {
  createSubaccount,
  newWebhookToken,
  registerWebhook,
  subaccountSchema,
  vendorWallet,
  type SubaccountData,
} from '../payments/asaas/asaas-connect';
import { webhookPath } from '../shop/shop-id';
import type { StoredShop } from './stored-shop';
import { StripeOnboarding } from './stripe-onboarding';
import { apiUrlUnlessOfficial, officialOrigins } from '../payments/provider-hosts';
import type { ProviderDocument } from '../payments/provider-fields';
import { PROVIDERS, type ProviderName } from '../payments/providers';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { ENV_SHOP_ID } from '../shop/shop-id';
import type { ConnectLink, ConnectLinkStore, RegistryStore } from './ports';
import type { ShopCredentials } from './shop-credentials';

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
export function keyOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The owner's data for an Asaas subaccount, checked; VALIDATION_FAILED naming each field. */
function parseSubaccount(input: unknown): SubaccountData {
  const source = { ...((input ?? {}) as Record<string, unknown>) };
  // A form sends every field, empty ones as '': those are absent.
  for (const [field, value] of Object.entries(source)) if (value === '') delete source[field];
  const parsed = subaccountSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_FAILED', 'The account data is not valid.', {
    details: parsed.error.issues.map((issue) => ({
      field:
        issue.path.map(String).join('.') ||
        (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : 'account'),
      problem:
        issue.code === 'unrecognized_keys' ? 'is not a field of an Asaas account' : issue.message,
    })),
  });
}

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

export function invalidLink(): AppError {
  return new AppError(
    'CONNECT_LINK_INVALID',
    'This link is unknown, was used already, or expired: ask for a new one.',
  );
}

/**
 * The links a vendor sends a shop's owner to connect the shop's provider account without
 * pasted keys (CONTRACT "Connecting a shop's provider account"): made for one shop and one
 * provider, good for 7 days and for one connection. Redis holds only each token's hash.
 */
export class ConnectLinks {
  /** Stripe's onboarding of an Express account, with this class's links. */
  readonly stripe: StripeOnboarding;

  constructor(private readonly deps: ConnectLinksDeps) {
    this.stripe = new StripeOnboarding({
      ...deps,
      usable: (key) => this.usable(key),
      giveBack: (key, link) => this.giveBack(key, link),
    });
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
    const token = randomBytes(32).toString('base64url');
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
   * The link's button: where the owner's browser goes to authorize the vendor's application
   * (Mercado Pago's OAuth with PKCE; the verifier and the link wait under `state`).
   */
  async start(token: string): Promise<string> {
    const key = keyOf(token);
    const link = await this.usable(key);
    await this.deps.credentials.precheck(
      link.shop,
      link.incarnation,
      link.provider as ProviderName,
    );
    if (link.provider === 'stripe') return this.stripe.start(key, link);
    const application = this.deps.vendor.mercadopago;
    if (link.provider !== 'mercadopago') throw invalidLink();
    if (!application) throw invalidLink();
    const state = randomBytes(24).toString('base64url');
    const { verifier, challenge } = pkcePair();
    await this.deps.links.putState(state, { link: key, secret: verifier }, STATE_TTL_MS);
    return authorizationUrl(application, { redirectUri: this.redirectUri(), state, challenge });
  }

  /**
   * Mercado Pago's callback: the code exchanged (with the verifier `state` names) for the
   * owner's tokens, stored on the shop, and the link used up. A link whose exchange failed
   * works again.
   */
  async finish(query: {
    code?: string;
    state?: string;
    error?: string;
  }): Promise<{ outcome: 'connected'; page: LinkPage } | { outcome: 'cancelled' }> {
    const pending = query.state ? await this.deps.links.takeState(query.state) : undefined;
    if (!pending) throw invalidLink();
    if (query.error !== undefined || !query.code) return { outcome: 'cancelled' };
    const link = await this.deps.links.take(pending.link);
    if (!link || Date.parse(link.expiresAt) <= this.deps.clock().getTime()) throw invalidLink();
    const application = this.deps.vendor.mercadopago;
    try {
      if (!application) throw invalidLink();
      await this.deps.credentials.precheck(link.shop, link.incarnation, 'mercadopago');
      const grant = await exchangeCode(
        application,
        { code: query.code, verifier: pending.secret, redirectUri: this.redirectUri() },
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
      await this.giveBack(pending.link, link);
      throw error;
    }
  }

  /**
   * The Asaas link's form: the shop's subaccount created from the owner's data with the vendor's
   * root key, its webhook registered, its key and wallet stored; the link used. Asaas's refusal
   * of the data is VALIDATION_FAILED (the form shows it) and the link works again.
   */
  async connectAsaas(token: string, input: unknown): Promise<LinkPage> {
    const key = keyOf(token);
    const link = await this.usable(key);
    if (link.provider !== 'asaas') throw invalidLink();
    const data = parseSubaccount(input);
    const taken = await this.deps.links.take(key);
    if (!taken) throw invalidLink();
    try {
      const stored = await this.subaccountFor(
        link.shop,
        link.incarnation,
        data,
        `connect:${link.by}`,
      );
      return pageOf(link, stored.name);
    } catch (error) {
      await this.giveBack(key, link);
      throw error;
    }
  }

  /** The admin API's `account` body: the shop's subaccount created at once, no link. */
  async connectAsaasNow(shop: string, input: unknown, by: string): Promise<StoredShop> {
    if (!this.canConnect('asaas')) {
      throw new AppError(
        'CONNECT_NOT_CONFIGURED',
        `This deployment has no Asaas account to connect shops with: set ${VENDOR_VARIABLES.asaas}.`,
      );
    }
    const entry = await this.deps.store.get(shop);
    if (!entry) throw new AppError('SHOP_NOT_FOUND', `No shop ${shop} in the registry.`);
    return this.subaccountFor(shop, entry.stored.incarnation ?? '', parseSubaccount(input), by);
  }

  private async subaccountFor(
    shop: string,
    incarnation: string,
    data: SubaccountData,
    by: string,
  ): Promise<StoredShop> {
    const root = this.deps.vendor.asaas;
    if (!root) throw invalidLink();
    await this.deps.credentials.precheck(shop, incarnation, 'asaas');
    const walletId = await vendorWallet(root);
    const created = await createSubaccount(root, data);
    const webhookToken = newWebhookToken();
    try {
      await registerWebhook(root.apiUrl, created.apiKey, {
        url: `${this.deps.publicUrl}${webhookPath('asaas', shop)}`,
        authToken: webhookToken,
        email: data.email,
      });
    } catch (error) {
      // The account exists: keep it. Its checkouts are still read by the reconciler; the
      // webhook is a hint. Said, so an operator registers it at Asaas.
      this.deps.log?.error("the Asaas subaccount's webhook could not be registered", {
        shop,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    const official = officialOrigins(ASAAS_API).includes(new URL(root.apiUrl).origin);
    const provider = {
      name: 'asaas',
      connection: 'subaccount',
      account: created.account,
      connectedAt: this.deps.clock().toISOString(),
      apiKey: created.apiKey,
      webhookToken,
      walletId: created.walletId,
      vendorWalletId: walletId,
      ...(official
        ? { environment: root.apiUrl === ASAAS_API.sandbox ? 'sandbox' : 'production' }
        : { apiUrl: root.apiUrl }),
    } as ProviderDocument;
    return this.deps.credentials.connect(shop, incarnation, provider, by);
  }
}
