import { AppError } from '../errors';
import { providerSettingsOf } from '../payments/provider-fields';
import { connectionOf, expiringCredential } from './shop-settings';
import { checkoutRoutePath, shopScope, webhookPath } from '../shop/shop-id';
import { DataKey, newRouteToken, type Keyring } from '../secrets/secret-box';
import type { AuditEntry, CredentialCheck, RegistryStore, ShopWork } from './ports';
import {
  changedFields,
  documentFields,
  parseShopDocument,
  unservedBecause,
  type ShopDocument,
} from './shop-document';
import { applyShopPatch, parseShopPatch } from './shop-patch';
import {
  newIncarnation,
  openShop,
  resealShop,
  sealShop,
  viewOf,
  type ShopView,
  type StoredShop,
} from './stored-shop';
import { changeShop, shopEntry } from './shop-changes';
import { rekeyShops, rotateRouteToken } from './shop-keys';
import { fieldsSet } from './shop-fields';
import {
  exists,
  openWorkError,
  refuseHandWrittenConnection,
  rejectBadCredentials,
  requireKeyring,
} from './shop-admin-checks';

export interface ShopAdminDeps {
  store: RegistryStore;
  /** SHOP_SECRET_KEYS; undefined when unset (the admin verbs then say so). */
  keyring: Keyring | undefined;
  credentials: CredentialCheck;
  work: ShopWork;
  publicUrl: string;
  clock: () => Date;
  sandboxAllowed: boolean;
  providerApiOrigins: readonly string[];
}

/** Who asks: `cli:<user>` or `admin:<token fingerprint>`. */
type Actor = string;

/**
 * The registry's verbs, shared by the admin API and the CLI (CONTRACT "Shops"): every answer
 * without a secret, every change in the audit trail.
 */
export class ShopAdmin {
  constructor(private readonly deps: ShopAdminDeps) {}

  private keyring(): Keyring {
    return requireKeyring(this.deps.keyring);
  }

  private urls(stored: Pick<StoredShop, 'id' | 'provider'>) {
    const base = this.deps.publicUrl;
    return {
      checkoutRoute: `${base}${checkoutRoutePath(stored.id)}`,
      webhook: `${base}${webhookPath(stored.provider.name, stored.id)}`,
    };
  }

  private audit(by: Actor, action: AuditEntry['action'], fields: string[] = []): AuditEntry {
    return { at: this.deps.clock().toISOString(), by, action, fields };
  }

  /** Adds a shop from its document, after checking its credentials. */
  async add(input: unknown, by: Actor) {
    refuseHandWrittenConnection((input as { provider?: unknown } | null)?.provider, undefined);
    const document = parseShopDocument(input, this.deps.providerApiOrigins);
    const keyring = this.keyring();
    if (await this.deps.store.get(document.id)) throw exists(document.id);
    await rejectBadCredentials(document, this.deps);
    const dataKey = DataKey.generate();
    const token = newRouteToken();
    const now = this.deps.clock().toISOString();
    const routeToken = { hash: dataKey.tokenHash(document.id, token), rotatedAt: now };
    const incarnation = newIncarnation();
    const meta = { enabled: true, createdAt: now, updatedAt: now, routeToken, incarnation };
    const stored = sealShop(document, { keyring, dataKey }, meta);
    const fields = fieldsSet(document, documentFields(document.provider.name));
    if (!(await this.deps.store.create(stored, this.audit(by, 'added', fields)))) {
      throw exists(document.id);
    }
    await this.deps.credentials.stored?.(document);
    const urls = this.urls(stored);
    return {
      shop: viewOf(stored),
      checkout_route: { url: urls.checkoutRoute, token },
      webhook_url: urls.webhook,
    };
  }

  async list() {
    const all = await this.deps.store.all();
    return [...all.values()]
      .map(({ stored }) => this.described(stored))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  async show(id: string) {
    return this.described((await shopEntry(this.deps.store, id)).stored);
  }

  private described(stored: StoredShop) {
    const urls = this.urls(stored);
    const problem = unservedBecause(stored.provider, this.deps.providerApiOrigins);
    return {
      ...viewOf(stored),
      // A shop stored before a rule it breaks is kept, not served: say why.
      ...(problem ? { served: false as const, problem } : {}),
      checkout_route: { url: urls.checkoutRoute },
      webhook_url: urls.webhook,
    };
  }

  /** Changes name, platform credentials, provider or payment; new credentials are checked first. */
  async update(id: string, input: unknown, by: Actor): Promise<ShopView> {
    const patch = parseShopPatch(input);
    const keyring = this.keyring();
    const stored = await changeShop(this.deps.store, id, async ({ stored: current }) => {
      const { document, dataKey } = openShop(current, keyring);
      refuseHandWrittenConnection(patch.provider, document.provider);
      const next = applyShopPatch(document, patch, this.deps.providerApiOrigins);
      const fields = changedFields(document, next);
      if (fields.length === 0) return undefined;
      if (fields.some((field) => /^(platform|provider)\./.test(field))) {
        await rejectBadCredentials(next, this.deps);
      }
      // A shop that must connect again still must, unless its provider was replaced.
      const keepReconnect = !fields.some((field) => field.startsWith('provider.'));
      const stored = resealShop(
        current,
        next,
        { keyring, dataKey },
        this.deps.clock().toISOString(),
        keepReconnect ? current.needsReconnect : undefined,
      );
      return { stored, audit: this.audit(by, 'updated', fields) };
    });
    if ('provider' in patch) {
      await this.deps.credentials.stored?.(openShop(stored, keyring).document);
    }
    return viewOf(stored);
  }

  async setEnabled(id: string, enabled: boolean, by: Actor): Promise<ShopView> {
    const stored = await changeShop(this.deps.store, id, async ({ stored: current }) =>
      current.enabled === enabled
        ? undefined
        : {
            stored: { ...current, enabled, updatedAt: this.deps.clock().toISOString() },
            audit: this.audit(by, enabled ? 'enabled' : 'disabled', ['enabled']),
          },
    );
    return viewOf(stored);
  }

  /** A new route token, answered once (shop-keys.ts `rotateRouteToken`). */
  async rotateToken(id: string, by: Actor, options: { revokePrevious?: boolean } = {}) {
    const keyring = this.keyring();
    const token = newRouteToken();
    const { stored, until } = await rotateRouteToken(this.deps.store, keyring, id, {
      token,
      now: this.deps.clock(),
      revokePrevious: options.revokePrevious,
      audit: (fields) => this.audit(by, 'token-rotated', fields),
    });
    return {
      checkout_route: { url: this.urls(stored).checkoutRoute, token },
      previous_token_valid_until: until ?? null,
    };
  }

  /** Checks the stored credentials now. */
  async verify(id: string) {
    const { stored } = await shopEntry(this.deps.store, id);
    const { document } = openShop(stored, this.keyring());
    const problems = await this.deps.credentials.check(document);
    const credential = expiringCredentialOf(document);
    return { shop: id, ok: problems.length === 0, problems, ...(credential ? { credential } : {}) };
  }

  /** The shop's platform account, opened, for the CLI's `--shop`: the caller scrubs it from its log. */
  async platformAccount(id: string): Promise<ShopDocument['platform']> {
    const { stored } = await shopEntry(this.deps.store, id);
    return openShop(stored, this.keyring()).document.platform;
  }

  /**
   * Removes a shop, its secrets, its audit trail and its data; 409 while it has work not done.
   * It is gone from the registry first, so every process refuses it from its next request on and
   * drops its queued jobs (they name its incarnation); its data is purged after.
   */
  async remove(id: string, by: Actor): Promise<void> {
    const current = await shopEntry(this.deps.store, id);
    const scope = shopScope(id, current.stored.incarnation);
    const work = await this.deps.work.openWork(scope);
    if (work.unreported > 0 || work.failed > 0) throw openWorkError(id, work);
    if (!(await this.deps.store.remove(current.raw, id, this.audit(by, 'removed')))) {
      throw new AppError('SHOP_CHANGED', `Shop ${id} changed while being removed; try again.`);
    }
    await this.deps.work.purge(scope);
    await this.deps.work.forgetBreaker(id);
  }

  async auditTrail(id: string, limit = 100): Promise<AuditEntry[]> {
    const entries = await this.deps.store.audit(id, limit);
    if (entries.length === 0) await shopEntry(this.deps.store, id);
    return entries;
  }

  /** `shops rekey` (shop-keys.ts `rekeyShops`). */
  async rekey(by: Actor): Promise<{ rewrapped: number; current: number }> {
    return rekeyShops(this.deps.store, this.keyring(), () =>
      this.audit(by, 'rekeyed', ['dataKey']),
    );
  }
}

/** The credential of a shop's document that expires (a pasted or a connected one), with the whole days left. */
function expiringCredentialOf(document: ShopDocument, now = new Date()) {
  let provider;
  try {
    provider = providerSettingsOf(document.provider, true, document.payment);
  } catch {
    // A connected account's settings need the vendor's accounts: its connection still tells.
    provider = { credentialExpiry: undefined };
  }
  const connection = connectionOf(document.provider);
  const expiry = expiringCredential({ provider, ...(connection ? { connection } : {}) });
  if (!expiry) return undefined;
  const daysLeft = Math.floor((Date.parse(expiry.expiresAt) - now.getTime()) / 86_400_000);
  return { ...expiry, daysLeft };
}
