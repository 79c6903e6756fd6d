import { errorMessage } from '../errors';
import { providerSecrets, providerSettingsOf } from '../payments/provider-fields';
import { SecretBoxError, type Keyring } from '../shops/secret-box';
import type { RegistryStore, ShopEntry } from './ports';
import { refuseUnservable } from './shop-document';
import type { ShopSettings, ShopSource } from './shop-settings';
import { masterKeyIdOf, openShop, routeTokenMatches } from './stored-shop';

export interface RegistryShopsOptions {
  store: RegistryStore;
  keyring: Keyring | undefined;
  /** The env shop, served beside the registry's (undefined without PLATFORM_EMAIL). */
  envShop: ShopSettings | undefined;
  /** SANDBOX_IN_PRODUCTION=true under NODE_ENV=production. */
  sandboxInProduction: boolean;
  /** PROVIDER_API_ORIGINS: a stored shop whose provider `apiUrl` it does not allow is not served. */
  providerApiOrigins: readonly string[];
  /** How often to look for a change (SHOP_REFRESH_MS). */
  refreshMs: number;
  clock: () => Date;
  log: {
    error(message: string, fields?: Record<string, unknown>): unknown;
    info(message: string, fields?: Record<string, unknown>): unknown;
  };
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

/**
 * The shops this process serves: the env shop and the registry's, each opened once and again
 * only when its stored text changes. Every process polls the registry's version every
 * `refreshMs` (one GET), so a change is served everywhere within that time, without a restart.
 */
export class RegistryShops implements ShopSource {
  private opened = new Map<string, { raw: string; settings: ShopSettings }>();
  private version: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly options: RegistryShopsOptions) {}

  get(id: string): ShopSettings | undefined {
    const { envShop } = this.options;
    if (envShop && id === envShop.id) return envShop;
    return this.opened.get(id)?.settings;
  }

  ids(): readonly string[] {
    const { envShop } = this.options;
    return [...(envShop ? [envShop.id] : []), ...this.opened.keys()];
  }

  /**
   * The first read, at start: throws RegistryKeyError when a shop's data key names a master key
   * SHOP_SECRET_KEYS does not hold (or the registry holds shops and SHOP_SECRET_KEYS is unset).
   */
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

  /** Polls the registry's version every `refreshMs`. */
  start(): void {
    this.timer ??= setInterval(() => void this.refresh(), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the registry again if its version moved; one refresh at a time. */
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
      // Redis away: keep serving the shops as they were; the next poll tries again.
      this.options.log.error(
        'the shop registry could not be read; serving the shops as they were',
        {
          error: errorMessage(error),
        },
      );
    }
  }

  private apply(entries: Map<string, ShopEntry>): void {
    const next = new Map<string, { raw: string; settings: ShopSettings }>();
    for (const [id, entry] of entries) {
      const known = this.opened.get(id);
      if (known?.raw === entry.raw) {
        next.set(id, known);
        continue;
      }
      try {
        next.set(id, { raw: entry.raw, settings: this.open(entry) });
        this.options.log.info(known ? 'shop changed' : 'shop served', { shop: id });
      } catch (error) {
        // A shop that does not open keeps its previous settings (if any): one bad record must
        // not stop the others.
        if (known) next.set(id, known);
        this.options.log.error('a shop of the registry does not open; it is not served as stored', {
          shop: id,
          error: errorMessage(error),
          unknownKeyId: error instanceof SecretBoxError ? error.unknownKeyId : undefined,
        });
      }
    }
    for (const id of this.opened.keys())
      if (!next.has(id)) this.options.log.info('shop no longer served', { shop: id });
    this.opened = next;
  }

  private open(entry: ShopEntry): ShopSettings {
    const { keyring, clock, sandboxInProduction } = this.options;
    if (!keyring) throw new SecretBoxError('SHOP_SECRET_KEYS is not set');
    const { stored } = entry;
    refuseUnservable(stored.provider, this.options.providerApiOrigins);
    const { document, dataKey } = openShop(stored, keyring);
    const provider = providerSettingsOf(document.provider, sandboxInProduction, document.payment);
    this.options.onSecrets([
      document.platform.password,
      document.platform.apiKey,
      Buffer.from(`${document.platform.email}:${document.platform.password}`).toString('base64'),
      ...providerSecrets(provider),
    ]);
    return {
      id: stored.id,
      name: stored.name,
      enabled: stored.enabled,
      platform: document.platform,
      provider,
      tokenMatches: (token) => routeTokenMatches(stored, dataKey, token, clock()),
    };
  }
}
