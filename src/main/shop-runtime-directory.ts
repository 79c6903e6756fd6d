import type { CheckoutDeps } from '../checkout/checkout-deps';
import { shopOfCheckout } from '../checkout/checkout-record';
import type { JobShopVerdict, ShopDirectory } from '../checkout/shop-directory';
import { shopScope } from '../redis/keyspace';
import type { PaymentProvider } from '../payments/payment-provider';
import type { ProviderModule } from '../payments/provider-module';
import type { ShopSettings, ShopSource } from '../shop-registry/shop-settings';
import type { SyncDeps } from '../sync/ports';

export interface ShopRuntime {
  settings: ShopSettings;
  deps: CheckoutDeps;
  providerModule: ProviderModule;
  /**
   * The provider as its adapter is built, without the renewal on a 401 that `deps.provider` may
   * wrap it in: what the one retry after a renewal calls, so a 401 again ends there.
   */
  bareProvider?: PaymentProvider;
  /** The shop's ERP sync, when ERP_SINK is set. */
  sync: SyncDeps | undefined;
}

/** How often one gone scope may be purged by this process (each purge scans the keyspace). */
const PURGE_EVERY_MS = 60_000;

/**
 * The directory of every shop this process serves (src/checkout/shop-directory.ts): each shop's
 * collaborators built once on first use, and again when its settings change. The one directory
 * the server, the workers and the reconciler ask.
 */
export class ShopRuntimeDirectory implements ShopDirectory<ShopRuntime> {
  private readonly built = new Map<string, ShopRuntime>();
  private readonly purgedAt = new Map<string, number>();

  constructor(
    private readonly source: ShopSource,
    private readonly build: (settings: ShopSettings) => ShopRuntime,
    /** Deletes every key of one incarnation of a shop (src/store/redis-shop-work.ts). */
    private readonly purgeScope: (scope: string) => Promise<void> = async () => undefined,
  ) {}

  cached(id: string): ShopRuntime | undefined {
    return this.runtimeOf(id, this.source.get(id));
  }

  async byId(id: string): Promise<ShopRuntime | undefined> {
    return this.runtimeOf(id, (await this.source.fresh(id)).settings);
  }

  async byCheckout(checkoutId: string): Promise<ShopRuntime | undefined> {
    const shop = shopOfCheckout(checkoutId);
    return shop === undefined ? undefined : this.byId(shop);
  }

  /**
   * Whether a job's shop is still the incarnation that queued it, as stored now: `gone` when no
   * shop has the id any more or another incarnation has it; `unserved` when it is, but this
   * process does not serve it (a text it cannot open; the env shop without its variables here).
   */
  async forJob(id: string, incarnation: string): Promise<JobShopVerdict> {
    const { settings, stored } = await this.source.fresh(id);
    if (stored === undefined || stored !== incarnation) return 'gone';
    return this.runtimeOf(id, settings) ? 'served' : 'unserved';
  }

  /**
   * Deletes what a gone incarnation's work left (a request that raced the shop's removal wrote
   * after its purge). One purge scans the keyspace, so each scope is purged at most once a
   * minute here, however many of its jobs are dropped; a legacy scope (the bare id) is left
   * alone while another shop has the id, whose breaker lives under that tag.
   */
  async purge(id: string, incarnation: string): Promise<void> {
    const scope = shopScope(id, incarnation);
    const now = Date.now();
    const last = this.purgedAt.get(scope);
    if (last !== undefined && now - last < PURGE_EVERY_MS) return;
    if (incarnation === '' && (await this.source.fresh(id)).stored !== undefined) return;
    this.purgedAt.set(scope, now);
    for (const [old, at] of this.purgedAt)
      if (now - at >= PURGE_EVERY_MS) this.purgedAt.delete(old);
    await this.purgeScope(scope);
  }

  ids(): readonly string[] {
    return this.source.ids();
  }

  private runtimeOf(id: string, settings: ShopSettings | undefined): ShopRuntime | undefined {
    if (!settings) {
      this.built.delete(id);
      return undefined;
    }
    const cached = this.built.get(id);
    if (cached?.settings === settings) return cached;
    const runtime = this.build(settings);
    this.built.set(id, runtime);
    return runtime;
  }
}
