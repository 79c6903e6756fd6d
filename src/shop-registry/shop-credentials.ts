import { randomUUID } from 'node:crypto';
import { AppError, errorMessage } from '../errors';
import { paymentChoiceProblems } from '../payments/payment-options';
import { ConnectionRevokedError, isConnected } from '../payments/define-provider';
import type { ProviderDocument } from '../payments/provider-fields';
import { PROVIDERS, type ProviderName } from '../payments/providers';
import type { VendorAccounts } from '../payments/vendor-accounts';
import type { Keyring } from '../secrets/secret-box';
import type { AuditEntry, RegistryStore, RenewLock } from './ports';
import { changeShop, shopEntry } from './shop-changes';
import { changedFields, parseShopDocument } from './shop-document';
import { requireKeyring } from './shop-admin-checks';
import { credentialFingerprint } from './shop-settings';
import { openShop, resealShop, type StoredShop } from './stored-shop';

/** How long one renewal may hold a shop's lock: longer than the provider's call may take. */
export const RENEW_LOCK_MS = 60_000;

/** How often a process that found the lock held looks again whether the renewal is done. */
const LOCK_POLL_MS = 100;

export interface ShopCredentialsDeps {
  store: RegistryStore;
  keyring: Keyring | undefined;
  lock: RenewLock;
  vendor: VendorAccounts;
  providerApiOrigins: readonly string[];
  clock: () => Date;
  log: {
    info(message: string, fields?: Record<string, unknown>): unknown;
    warn(message: string, fields?: Record<string, unknown>): unknown;
    error(message: string, fields?: Record<string, unknown>): unknown;
  };
}

/** What a renewal did. */
export type RenewOutcome =
  /** This process renewed it, and stored the new credential before anything used it. */
  | 'renewed'
  /** Another process renewed it meanwhile (or holds the lock and did so while we waited). */
  | 'renewed-elsewhere'
  /** Not due: it expires later than CREDENTIAL_RENEW_BEFORE from now. */
  | 'not-due'
  /** The shop is not connected, or its credential does not renew itself. */
  | 'not-renewable'
  /** The provider refused for good: the shop is marked needs_reconnect. */
  | 'needs-reconnect';

/**
 * A connected shop's credential over its life (CONTRACT "Credentials stay alive"): stored when
 * the owner connects, renewed ahead of its expiry or after the provider refused it, by one
 * process at a time (a per-shop lock in Redis: Mercado Pago's refresh tokens are single use, so
 * two renewals at once would kill the grant), the new credential stored before it is used, and
 * a renewal refused for good said on the shop (`needs_reconnect`) until a new link fixes it.
 */
export class ShopCredentials {
  constructor(private readonly deps: ShopCredentialsDeps) {}

  private audit(by: string, action: AuditEntry['action'], fields: string[]): AuditEntry {
    return { at: this.deps.clock().toISOString(), by, action, fields };
  }

  /**
   * Whether the shop the link was made for can be connected to `provider` as it stands: still
   * that incarnation (CONNECT_LINK_INVALID otherwise), and its payment choice one the provider
   * can serve (VALIDATION_FAILED naming it). Checked before anything is made at the provider, so
   * a refusal never leaves an account behind that no one can reach.
   */
  async precheck(id: string, incarnation: string, provider: ProviderName): Promise<void> {
    const entry = await this.deps.store.get(id);
    if (!entry || (entry.stored.incarnation ?? '') !== incarnation) {
      throw new AppError(
        'CONNECT_LINK_INVALID',
        `Shop ${id} was removed since the link was made: ask for a new one.`,
      );
    }
    const problems = paymentChoiceProblems(provider, entry.stored.payment ?? {});
    if (problems.length > 0) {
      throw new AppError(
        'VALIDATION_FAILED',
        `Shop ${id}'s payment choice cannot be served by ${PROVIDERS[provider].label}: change it first.`,
        {
          details: problems.map(({ part, problem }) => ({ field: `payment.${part}`, problem })),
        },
      );
    }
  }

  /**
   * Stores a connected provider account on the shop (the incarnation the link was made for),
   * replacing whatever provider it had, and clears `needs_reconnect`.
   */
  async connect(
    id: string,
    incarnation: string,
    provider: ProviderDocument,
    by: string,
  ): Promise<StoredShop> {
    const keyring = requireKeyring(this.deps.keyring);
    return changeShop(this.deps.store, id, async ({ stored: current }) => {
      if ((current.incarnation ?? '') !== incarnation) {
        throw new AppError(
          'CONNECT_LINK_INVALID',
          `Shop ${id} was removed and added again since the link was made: ask for a new one.`,
        );
      }
      const { document, dataKey } = openShop(current, keyring);
      const next = parseShopDocument({ ...document, provider }, this.deps.providerApiOrigins);
      // A new connection: a needs_reconnect of the one it replaces is cleared.
      return {
        stored: resealShop(current, next, { keyring, dataKey }, this.deps.clock().toISOString()),
        audit: this.audit(by, 'connected', changedFields(document, next)),
      };
    });
  }

  /**
   * Renews the shop's credential when it is due (`reason: 'due'`), or because the provider
   * refused the one whose fingerprint is `stale` (`'rejected'`, a 401): one that is no longer
   * stored was renewed already. One process renews; the others wait for it and use what it
   * stored.
   */
  async renew(
    id: string,
    request: { reason: 'due' } | { reason: 'rejected'; stale: string },
  ): Promise<RenewOutcome> {
    const owner = randomUUID();
    const { lock } = this.deps;
    if (!(await lock.acquire(id, owner, RENEW_LOCK_MS))) {
      // Another process renews it now: wait for it, then use what it stored.
      const until = Date.now() + RENEW_LOCK_MS;
      while ((await lock.held(id)) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      }
      return 'renewed-elsewhere';
    }
    try {
      return await this.renewHolding(id, request);
    } finally {
      await lock.release(id, owner);
    }
  }

  private async renewHolding(
    id: string,
    request: { reason: 'due' } | { reason: 'rejected'; stale: string },
  ): Promise<RenewOutcome> {
    const keyring = requireKeyring(this.deps.keyring);
    const { stored } = await shopEntry(this.deps.store, id);
    if (stored.needsReconnect) return 'needs-reconnect';
    const { document } = openShop(stored, keyring);
    const provider = document.provider;
    const renew = PROVIDERS[provider.name].connection?.renew;
    if (!isConnected(provider) || !renew) return 'not-renewable';
    if (request.reason === 'due') {
      if (!this.isDue(provider.expiresAt)) return 'not-due';
    } else if (credentialFingerprint(provider) !== request.stale) {
      return 'renewed-elsewhere';
    }
    let renewed: ProviderDocument;
    try {
      renewed = (await (
        renew as (d: unknown, v: VendorAccounts, c: () => Date) => Promise<unknown>
      )(provider, this.deps.vendor, this.deps.clock)) as ProviderDocument;
    } catch (error) {
      if (!(error instanceof ConnectionRevokedError)) throw error;
      await this.markNeedsReconnect(id, stored, error.message);
      return 'needs-reconnect';
    }
    // Stored at once, before anything uses it: the refresh token it replaces is spent.
    try {
      await this.storeRenewed(id, provider, renewed);
    } catch (error) {
      // The new pair is lost with this process's memory: the next renewal is refused and says
      // needs_reconnect. Said now, with why.
      this.deps.log.error(
        'a renewed credential could not be stored; the shop will need a new link',
        {
          shop: id,
          provider: provider.name,
          error: errorMessage(error),
        },
      );
      throw error;
    }
    this.deps.log.info('connected credential renewed', {
      shop: id,
      provider: provider.name,
      expiresAt: (renewed as { expiresAt?: string }).expiresAt,
    });
    return 'renewed';
  }

  private async storeRenewed(
    id: string,
    used: ProviderDocument,
    renewed: ProviderDocument,
  ): Promise<void> {
    const keyring = requireKeyring(this.deps.keyring);
    await changeShop(this.deps.store, id, async ({ stored: current }) => {
      const { document, dataKey } = openShop(current, keyring);
      // Reconnected meanwhile (another account, another grant): what it stored stands.
      if (JSON.stringify(document.provider) !== JSON.stringify(used)) return undefined;
      const next = { ...document, provider: renewed };
      return {
        stored: resealShop(current, next, { keyring, dataKey }, this.deps.clock().toISOString()),
        audit: this.audit('connector:renewal', 'credential-renewed', changedFields(document, next)),
      };
    });
  }

  /**
   * The provider says the shop's connected account can no longer take payments (Stripe disabled
   * its charges): the shop is marked needs_reconnect, as a refused renewal marks it. False when it
   * was marked already.
   */
  async needsReconnect(id: string, reason: string): Promise<boolean> {
    const { stored } = await shopEntry(this.deps.store, id);
    if (stored.needsReconnect) return false;
    await this.markNeedsReconnect(id, stored, reason);
    return true;
  }

  /**
   * The provider says the shop's connected account takes payments again (Stripe enabled its
   * charges after disabling them): the needs_reconnect it was marked with is cleared. False when
   * it was not marked.
   */
  async restored(id: string): Promise<boolean> {
    const { stored } = await shopEntry(this.deps.store, id);
    if (!stored.needsReconnect) return false;
    await changeShop(this.deps.store, id, async ({ stored: current }) => {
      if (!current.needsReconnect || current.dataKey !== stored.dataKey) return undefined;
      const { needsReconnect: _cleared, ...rest } = current;
      const since = this.deps.clock().toISOString();
      return {
        stored: { ...rest, updatedAt: since },
        audit: this.audit('connector:provider', 'restored', ['needsReconnect']),
      };
    });
    this.deps.log.info('a connected shop takes payments again: its provider restored it', {
      shop: id,
      provider: stored.provider.name,
    });
    return true;
  }

  private async markNeedsReconnect(id: string, seen: StoredShop, reason: string): Promise<void> {
    this.deps.log.error('a connected shop must connect again: its provider refused it', {
      shop: id,
      provider: seen.provider.name,
      reason,
    });
    await changeShop(this.deps.store, id, async ({ stored: current }) => {
      // Connected again meanwhile: the new connection stands.
      if (current.dataKey !== seen.dataKey || current.needsReconnect) return undefined;
      if (JSON.stringify(current.provider) !== JSON.stringify(seen.provider)) return undefined;
      const since = this.deps.clock().toISOString();
      return {
        stored: { ...current, needsReconnect: { since, reason }, updatedAt: since },
        audit: this.audit('connector:renewal', 'needs-reconnect', ['needsReconnect']),
      };
    });
  }

  /** Whether a credential expiring at `expiresAt` is within CREDENTIAL_RENEW_BEFORE of it. */
  private isDue(expiresAt: string | undefined): boolean {
    if (expiresAt === undefined) return false;
    return Date.parse(expiresAt) - this.deps.clock().getTime() <= this.deps.vendor.renewBeforeMs;
  }

  /**
   * Renews every shop of `ids` whose credential is due; a failure of one is logged and leaves
   * the others alone (the next pass tries it again).
   */
  async renewDue(
    shops: ReadonlyArray<{ id: string; expiresAt?: string; renews: boolean }>,
  ): Promise<Map<string, RenewOutcome | 'failed'>> {
    const outcomes = new Map<string, RenewOutcome | 'failed'>();
    for (const shop of shops) {
      // Only what is due takes a lock: `renew` looks again, at the shop as stored.
      if (!shop.renews || !this.isDue(shop.expiresAt)) continue;
      try {
        outcomes.set(shop.id, await this.renew(shop.id, { reason: 'due' }));
      } catch (error) {
        outcomes.set(shop.id, 'failed');
        this.deps.log.warn('a connected credential could not be renewed; tried again later', {
          shop: shop.id,
          error: errorMessage(error),
        });
      }
    }
    return outcomes;
  }
}
