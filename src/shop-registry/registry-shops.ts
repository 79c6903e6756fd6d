import { errorMessage } from '../errors';
import type { Log } from '../log';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { SecretBoxError, type Keyring } from '../secrets/secret-box';
import { BatchedReads } from './batched-reads';
import type { RegistryStore, ShopEntry } from './ports';
import { documentSecrets, refuseUnservable } from './shop-document';
import { settingsOf, type ShopSettings, type ShopSource } from './shop-settings';
import { masterKeyIdOf, openShop, routeTokenCheck } from './stored-shop';

export interface RegistryShopsOptions {
  store: RegistryStore;
  keyring: Keyring | undefined;
  sandboxInProduction: boolean;
  /** PROVIDER_API_ORIGINS (shop-document.ts `unservedBecause`). */
  providerApiOrigins: readonly string[];
  /** The vendor's accounts and fee: a connected shop is served with them. */
  vendor?: VendorAccounts;
  /** SHOP_REFRESH_MS. */
  refreshMs: number;
  clock: () => Date;
  log: Pick<Log, 'error' | 'info'>;
  /** Told each opened shop's secret values, so that no log line ever carries them. */
  onSecrets(values: string[]): void;
}

/** Raised at start when the registry holds what this process cannot open. */
export class RegistryKeyError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'RegistryKeyError';
  }
}

/** How long the same failure to read the registry goes unsaid after it was said. */
const READ_ERROR_QUIET_MS = 30_000;

/** The one key of the batched version reads. */
const REGISTRY = 'registry';

/**
 * The registry's shops this process serves (the env shop is put beside them in main/shop-deps.ts),
 * each opened once and again only when its stored text changes. Every request and job that names
 * a shop reads the registry's version first, and the shop's text once that moved (`fresh`), so a
 * change made by any process is honoured by every process from its next request on. The poll
 * every `refreshMs` keeps the list of shops (the reconciler's and the sync's) current.
 */
export class RegistryShops implements ShopSource {
  private opened = new Map<string, { raw: string; settings: ShopSettings }>();
  /** The text each shop that did not open was last read as: tried again only once it changes. */
  private readonly unopenable = new Map<string, string>();
  private version: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private readError: { message: string; at: number; repeats: number } | undefined;
  /** Each request's read of its shop and of the version, batched (one HMGET, one GET for many). */
  private readonly reads: BatchedReads<ShopEntry>;
  private readonly versions: BatchedReads<string>;

  constructor(private readonly options: RegistryShopsOptions) {
    this.reads = new BatchedReads((ids) => options.store.getMany(ids));
    this.versions = new BatchedReads(
      async () => new Map([[REGISTRY, await options.store.version()]]),
    );
  }

  get(id: string): ShopSettings | undefined {
    return this.opened.get(id)?.settings;
  }

  ids(): readonly string[] {
    return [...this.opened.keys()];
  }

  /**
   * The shop as stored now, read after this call, opened again only when its text changed; throws
   * with Redis away. The version moves with every write, in the same script: when it reads as it
   * did at this process's last full read, no shop changed and the common case is one small GET
   * shared by every request of the moment. Once it moved, the shop's own text is read (and the
   * whole registry again, in the background, so the next requests take the short way again).
   */
  async fresh(id: string): ReturnType<ShopSource['fresh']> {
    const readAll = this.version;
    const unchanged = readAll !== undefined && (await this.versions.read(REGISTRY)) === readAll;
    if (unchanged) {
      // One not held is not stored, unless its text did not open (then its own read says which
      // incarnation is stored: its jobs wait, they are not a gone shop's).
      const held = this.opened.get(id)?.settings;
      if (held) return { settings: held, stored: held.incarnation };
      if (!this.unopenable.has(id)) return { settings: undefined, stored: undefined };
    } else {
      void this.refresh();
    }
    const entry = await this.reads.read(id);
    const known = this.opened.get(id);
    if (!entry) {
      if (known) {
        this.opened.delete(id);
        this.options.log.info('shop no longer served', { shop: id });
      }
      return { settings: undefined, stored: undefined };
    }
    if (known?.raw === entry.raw)
      return { settings: known.settings, stored: known.settings.incarnation };
    return {
      settings: this.served(id, entry, known !== undefined),
      stored: entry.stored.incarnation ?? '',
    };
  }

  /**
   * What `entry`, a text other than the one served, serves: opened once per text. A text that
   * does not open here serves nothing, logged once: serving the shop's previous text instead
   * would keep a revoked token or a disabled shop working on this process.
   */
  private served(id: string, entry: ShopEntry, known: boolean): ShopSettings | undefined {
    this.opened.delete(id);
    if (this.unopenable.get(id) === entry.raw) return undefined;
    const settings = this.openLogged(id, entry, known);
    if (!settings) return undefined;
    // Another request may have opened the same text meanwhile: one settings object per text.
    const now = this.opened.get(id);
    if (now?.raw === entry.raw) return now.settings;
    this.opened.set(id, { raw: entry.raw, settings });
    return settings;
  }

  private openLogged(id: string, entry: ShopEntry, known: boolean): ShopSettings | undefined {
    try {
      const settings = this.open(entry);
      this.unopenable.delete(id);
      this.options.log.info(known ? 'shop changed' : 'shop served', { shop: id });
      return settings;
    } catch (error) {
      this.unopenable.set(id, entry.raw);
      this.options.log.error('a shop of the registry does not open; it is not served as stored', {
        shop: id,
        error: errorMessage(error),
        unknownKeyId: error instanceof SecretBoxError ? error.unknownKeyId : undefined,
      });
      return undefined;
    }
  }

  /** The first read, at start: RegistryKeyError when a shop's master key is not held. */
  async load(): Promise<void> {
    const version = await this.options.store.version();
    const entries = await this.options.store.all();
    const problems = this.keyProblems(entries);
    if (problems.length > 0) throw new RegistryKeyError(problems);
    this.apply(entries);
    this.version = version;
  }

  private keyProblems(entries: Map<string, ShopEntry>): string[] {
    const { keyring } = this.options;
    if (entries.size === 0) return [];
    if (!keyring) {
      return [
        `SHOP_SECRET_KEYS: is required: the registry holds ${entries.size} shop(s) whose secrets it encrypts`,
      ];
    }
    const unknown = new Map<string, string[]>();
    for (const [id, { stored }] of entries) {
      const keyId = masterKeyIdOf(stored) ?? '(unreadable)';
      if (!keyring.byId.has(keyId)) unknown.set(keyId, [...(unknown.get(keyId) ?? []), id]);
    }
    return [...unknown].map(
      ([keyId, shops]) =>
        `SHOP_SECRET_KEYS: holds no key ${keyId}, which wraps the data key of ${shops.length} shop(s) (${shops.slice(0, 5).join(', ')}${shops.length > 5 ? ', ...' : ''}); add it back, or run \`connector shops rekey\` where it is held`,
    );
  }

  start(): void {
    this.timer ??= setInterval(() => void this.refresh(), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the registry again if its version moved; one at a time. */
  refresh(): Promise<void> {
    this.refreshing ??= this.refreshOnce().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshOnce(): Promise<void> {
    try {
      const version = await this.options.store.version();
      if (version === this.version) return;
      this.apply(await this.options.store.all());
      this.version = version;
    } catch (error) {
      // Redis away: keep serving the shops as they were. Said once per error per 30 s (a poll
      // every SHOP_REFRESH_MS would make it a stream).
      const message = errorMessage(error);
      const now = this.options.clock().getTime();
      const last = this.readError?.message === message ? this.readError : undefined;
      if (last && now - last.at < READ_ERROR_QUIET_MS) {
        last.repeats += 1;
        return;
      }
      this.readError = { message, at: now, repeats: 0 };
      const repeats = last?.repeats ? { repeatsLeftOut: last.repeats } : {};
      const said = 'the shop registry could not be read; serving the shops as they were';
      this.options.log.error(said, { error: message, ...repeats });
    }
  }

  private apply(entries: Map<string, ShopEntry>): void {
    const previous = this.opened;
    this.opened = new Map();
    for (const [id, entry] of entries) {
      const known = previous.get(id);
      if (known?.raw === entry.raw) this.opened.set(id, known);
      else this.served(id, entry, known !== undefined);
    }
    for (const id of previous.keys())
      if (!entries.has(id)) this.options.log.info('shop no longer served', { shop: id });
    for (const id of this.unopenable.keys()) if (!entries.has(id)) this.unopenable.delete(id);
  }

  private open(entry: ShopEntry): ShopSettings {
    const { keyring, clock, sandboxInProduction } = this.options;
    if (!keyring) throw new SecretBoxError('SHOP_SECRET_KEYS is not set');
    const { stored } = entry;
    refuseUnservable(stored.provider, this.options.providerApiOrigins);
    const { document, dataKey } = openShop(stored, keyring);
    // The provider's settings first: a document that does not make them gives no secrets away.
    const settings = settingsOf(document, {
      incarnation: stored.incarnation ?? '',
      enabled: stored.enabled,
      tokenMatches: routeTokenCheck(stored, dataKey, clock),
      sandboxInProduction,
      ...(this.options.vendor ? { vendor: this.options.vendor } : {}),
      ...(stored.needsReconnect ? { needsReconnect: stored.needsReconnect } : {}),
    });
    this.options.onSecrets(documentSecrets(document));
    return settings;
  }
}
