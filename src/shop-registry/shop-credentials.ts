import { AppError, errorMessage } from '../errors';
import { paymentChoiceProblems } from '../payments/payment-options';
import { ConnectionRevokedError, isConnected } from '../payments/define-provider';
import type { ProviderDocument } from '../payments/provider-fields';
import { PROVIDERS, type ProviderName } from '../payments/providers';
import type { VendorAccounts } from '../payments/vendor-accounts';
import type { Log } from '../log';
import type { Keyring } from '../secrets/secret-box';
import type { AuditEntry, RegistryStore } from './ports';
import { changeShop, shopEntry } from './shop-changes';
import { changedFields, parseShopDocument } from './shop-document';
import { requireKeyring } from './shop-admin-checks';
import { credentialFingerprint } from './shop-settings';
import { openShop, resealShop, type StoredShop } from './stored-shop';

/** A renewal as its job carries it: why, and the fingerprint of the credential to renew. */
export interface RenewRequest {
  reason: 'due' | 'rejected';
  fingerprint: string;
}

/**
 * Runs each renewal in one process of all (a job: src/jobs/bullmq-provider-jobs.ts): a caller
 * asking for a credential whose renewal is under way waits for that one (`ours` false). No
 * outcome: still under way when the wait ended.
 */
export interface RenewalRuns {
  run(shop: string, request: RenewRequest): Promise<{ outcome?: RenewOutcome; ours: boolean }>;
}

export interface ShopCredentialsDeps {
  store: RegistryStore;
  keyring: Keyring | undefined;
  /** Where renewals run; none in the CLI, which renews nothing. */
  renewals?: RenewalRuns;
  vendor: VendorAccounts;
  providerApiOrigins: readonly string[];
  clock: () => Date;
  log: Log;
}

/** What a renewal did. */
export type RenewOutcome =
  /** This process renewed it, and stored the new credential before anything used it. */
  | 'renewed'
  /** Another process renewed it meanwhile (or still renews it when the wait ended). */
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
 * process at a time (a job per shop and credential: Mercado Pago's refresh tokens are single
 * use, so two renewals at once would kill the grant), the new credential stored before it is
 * used, and a renewal refused for good said on the shop (`needs_reconnect`) until a new link
 * fixes it.
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
   * refused the one whose fingerprint is `stale` (`'rejected'`, a 401), in one process of all:
   * the others asking meanwhile wait for it and use what it stored.
   */
  async renew(
    id: string,
    request: { reason: 'due' } | { reason: 'rejected'; stale: string },
  ): Promise<RenewOutcome> {
    if (!this.deps.renewals) throw new Error('no renewal queue in this process');
    const fingerprint =
      request.reason === 'rejected' ? request.stale : await this.storedFingerprint(id);
    const { outcome, ours } = await this.deps.renewals.run(id, {
      reason: request.reason,
      fingerprint,
    });
    // Still under way when the wait ended, or another's job renewed it: use what is stored.
    return outcome === undefined || (outcome === 'renewed' && !ours)
      ? 'renewed-elsewhere'
      : outcome;
  }

  /**
   * Renews the credential `request` names, here (the `renew` job): a credential no longer stored
   * was renewed already; a `due` one is renewed only when due.
   */
  async renewNow(id: string, request: RenewRequest): Promise<RenewOutcome> {
    const { stored } = await shopEntry(this.deps.store, id);
    if (stored.needsReconnect) return 'needs-reconnect';
    const provider = openShop(stored, requireKeyring(this.deps.keyring)).document.provider;
    const renew = PROVIDERS[provider.name].connection?.renew;
    if (!isConnected(provider) || !renew) return 'not-renewable';
    if (credentialFingerprint(provider) !== request.fingerprint) return 'renewed-elsewhere';
    if (request.reason === 'due' && !this.isDue(provider.expiresAt)) return 'not-due';
    let renewed: ProviderDocument;
    try {
      renewed = (await (
        renew as (d: unknown, v: VendorAccounts, c: () => Date) => Promise<unknown>
      )(provider, this.deps.vendor, this.deps.clock)) as ProviderDocument;
    } catch (error) {
      if (!(error instanceof ConnectionRevokedError)) throw error;
      // Refused, and another credential stored since: the previous release (renewing under its
      // own lock) spent the refresh token and stored what it got.
      if ((await this.storedFingerprint(id)) !== request.fingerprint) return 'renewed-elsewhere';
      await this.markNeedsReconnect(id, stored, error.message);
      return 'needs-reconnect';
    }
    await this.storeRenewed(id, provider, renewed);
    return 'renewed';
  }

  /** The fingerprint of the shop's credential as stored now. */
  private async storedFingerprint(id: string): Promise<string> {
    const { stored } = await shopEntry(this.deps.store, id);
    return credentialFingerprint(
      openShop(stored, requireKeyring(this.deps.keyring)).document.provider,
    );
  }

  /** Stores a renewed credential at once, before anything uses it: the one it replaces is spent. */
  private async storeRenewed(
    id: string,
    used: ProviderDocument,
    renewed: ProviderDocument,
  ): Promise<void> {
    const keyring = requireKeyring(this.deps.keyring);
    const log = { shop: id, provider: used.name };
    await changeShop(this.deps.store, id, async ({ stored: current }) => {
      const { document, dataKey } = openShop(current, keyring);
      // Reconnected meanwhile (another account, another grant): what it stored stands.
      if (JSON.stringify(document.provider) !== JSON.stringify(used)) return undefined;
      const next = { ...document, provider: renewed };
      return {
        stored: resealShop(current, next, { keyring, dataKey }, this.deps.clock().toISOString()),
        audit: this.audit('connector:renewal', 'credential-renewed', changedFields(document, next)),
      };
    }).catch((error: unknown) => {
      // The new pair is lost with this process's memory: the next renewal is refused and says
      // needs_reconnect. Said now, with why.
      this.deps.log.error(
        'a renewed credential could not be stored; the shop will need a new link',
        {
          ...log,
          error: errorMessage(error),
        },
      );
      throw error;
    });
    const { expiresAt } = renewed as { expiresAt?: string };
    this.deps.log.info('connected credential renewed', { ...log, expiresAt });
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
   * Renews every shop of `shops` whose credential is due; a failure of one is logged and leaves
   * the others alone (the next pass tries it again).
   */
  async renewDue(
    shops: ReadonlyArray<{ id: string; expiresAt?: string; renews: boolean }>,
  ): Promise<void> {
    for (const shop of shops) {
      // Only what is due is queued: its job looks again, at the shop as stored.
      if (!shop.renews || !this.isDue(shop.expiresAt)) continue;
      await this.renew(shop.id, { reason: 'due' }).catch((error: unknown) =>
        this.deps.log.warn('a connected credential could not be renewed; tried again later', {
          shop: shop.id,
          error: errorMessage(error),
        }),
      );
    }
  }
}
