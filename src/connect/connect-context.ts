import type { Log } from '../log';
import { linkInvalid, type ConnectContext, type LinkInHand } from '../payments/connect-flow';
import type { ProviderDocument } from '../payments/provider-fields';
import type { ProviderName } from '../payments/providers';
import { PROVIDERS } from '../payments/providers';
import type { VendorAccounts } from '../payments/vendor-accounts';
import type { Keyring } from '../secrets/secret-box';
import type { RegistryStore } from '../shop-registry/ports';
import { shopConnectedTo } from '../shop-registry/shop-changes';
import type { ShopCredentials } from '../shop-registry/shop-credentials';
import type { ConnectStates } from './connect-states';
import type { ConnectLink, ConnectLinkStore } from './ports';

/** What connecting shops by links is built with (src/main/connect-services.ts). */
export interface ConnectLinksDeps {
  links: ConnectLinkStore;
  log: Pick<Log, 'info' | 'error'>;
  store: RegistryStore;
  credentials: ShopCredentials;
  vendor: VendorAccounts;
  keyring: Keyring | undefined;
  publicUrl: string;
  clock: () => Date;
}

/** How long a link's refusals by its provider are counted (CONTRACT: an hour). */
const REFUSAL_WINDOW_MS = 3_600_000;

/** A link still good (not lapsed, its shop still the one it was made for), as a flow sees it. */
export async function usableLink(
  deps: ConnectLinksDeps,
  key: string,
): Promise<LinkInHand & { provider: ProviderName }> {
  const link = await deps.links.get(key);
  if (!link || Date.parse(link.expiresAt) <= deps.clock().getTime()) throw linkInvalid();
  const entry = await deps.store.get(link.shop);
  if (!entry || (entry.stored.incarnation ?? '') !== link.incarnation) throw linkInvalid();
  if (!Object.hasOwn(PROVIDERS, link.provider)) throw linkInvalid();
  const flow = PROVIDERS[link.provider as ProviderName].connection?.flow;
  if (!flow?.available(deps.vendor)) throw linkInvalid();
  return {
    key,
    shop: link.shop,
    shopName: entry.stored.name,
    incarnation: link.incarnation,
    by: link.by,
    expiresAt: link.expiresAt,
    provider: link.provider as ProviderName,
  };
}

/**
 * What a provider's connect flow is given (src/payments/connect-flow.ts), bound to that provider
 * and its flow's purpose: states of that purpose only, that provider's pending accounts, and the
 * connection stored as that provider's, by the link's maker.
 */
export function flowContext(
  deps: ConnectLinksDeps,
  states: ConnectStates,
  provider: ProviderName,
  purpose: string,
): ConnectContext {
  return {
    publicUrl: deps.publicUrl,
    clock: deps.clock,
    log: deps.log,
    ...stateSteps(states, { purpose, provider }),
    ...accountSteps(deps, provider),
    ...linkSteps(deps, provider),
    ...credentialSteps(deps.credentials, provider),
  };
}

/** The flow's links: that provider's only, taken while a connection is made, refusals counted. */
function linkSteps(
  deps: ConnectLinksDeps,
  provider: ProviderName,
): Pick<ConnectContext, 'usable' | 'use' | 'countRefusal' | 'refusals'> {
  const { links } = deps;
  return {
    async usable(key) {
      const link = await usableLink(deps, key);
      if (link.provider !== provider) throw linkInvalid();
      return link;
    },
    async use(link, work) {
      const taken = await links.take(link.key);
      if (!taken) throw linkInvalid();
      try {
        return await work();
      } catch (error) {
        // Nothing connected: the owner may follow the same link again while it lasts.
        await giveBack(deps, link.key, taken);
        throw error;
      }
    },
    countRefusal: (link) => links.countRefusal(link.key, REFUSAL_WINDOW_MS),
    refusals: (link) => links.refusals(link.key),
  };
}

/** The shop's credentials: the connection stored as that provider's, by the link's maker. */
function credentialSteps(
  credentials: ShopCredentials,
  provider: ProviderName,
): Pick<ConnectContext, 'precheck' | 'store' | 'needsReconnect' | 'restored'> {
  return {
    precheck: (target) => credentials.precheck(target.shop, target.incarnation, provider),
    async store(target, document) {
      const by = 'key' in target ? `connect:${target.by}` : target.by;
      const connected = { ...document, name: provider } as ProviderDocument;
      const stored = await credentials.connect(target.shop, target.incarnation, connected, by);
      return stored.name;
    },
    needsReconnect: (shop, reason) => credentials.needsReconnect(shop, reason),
    restored: (shop) => credentials.restored(shop),
  };
}

/** A flow's states: of its purpose and provider only. */
function stateSteps(
  states: ConnectStates,
  flow: { purpose: string; provider: string },
): Pick<ConnectContext, 'issueState' | 'checkState'> {
  return {
    issueState: (link, browser, values, ttlMs) =>
      states.issue({ flow, link: { key: link.key, shop: link.shop }, browser, ...values }, ttlMs),
    async checkState(given, browser) {
      const checked = await states.check(given, flow, browser);
      return {
        linkKey: checked.state.link,
        shop: checked.state.shop,
        ...(checked.secret === undefined ? {} : { secret: checked.secret }),
        ...(checked.state.account === undefined ? {} : { account: checked.state.account }),
        take: () => states.take(checked),
      };
    },
  };
}

/** The accounts a flow made at its provider, and the shops connected to them. */
function accountSteps(
  deps: ConnectLinksDeps,
  provider: ProviderName,
): Pick<
  ConnectContext,
  'linkAccount' | 'keepAccount' | 'pendingAccount' | 'dropAccount' | 'connectedTo'
> {
  const { links, clock } = deps;
  const leftOf = (link: LinkInHand) => Math.max(1, Date.parse(link.expiresAt) - clock().getTime());
  return {
    linkAccount: (link) => links.getLinkAccount(link.key),
    async keepAccount(link, account) {
      const pending = { link: link.key, shop: link.shop, account };
      if (!(await links.getLinkAccount(link.key))) {
        await links.putLinkAccount(link.key, pending, leftOf(link));
      }
      await links.putPendingAccount(provider, pending, leftOf(link));
    },
    pendingAccount: (account) => links.getPendingAccount(provider, account),
    dropAccount: (account) => links.dropPendingAccount(provider, account),
    async connectedTo(account) {
      const shop = await shopConnectedTo(deps.store, provider, account);
      if (!shop) return undefined;
      const entry = await deps.store.get(shop);
      return { shop, shopName: entry?.stored.name ?? shop };
    },
  };
}

/** Puts a link taken for a connection back, for the time it has left. */
async function giveBack(deps: ConnectLinksDeps, key: string, link: ConnectLink): Promise<void> {
  const left = Date.parse(link.expiresAt) - deps.clock().getTime();
  if (left > 0) await deps.links.put(key, link, left);
}
