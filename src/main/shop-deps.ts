import type { CheckoutDeps } from '../checkout/checkout-deps';
import { shopOfCheckout } from '../checkout/checkout-record';
import type { Config } from '../config';
import type { ProviderModule } from '../payments/provider-module';
import type { ShopSettings, ShopSource } from '../registry/shop-settings';
import { secretMatcher } from '../shops/secret-match';
import { ENV_SHOP_ID } from '../shops/shop-id';
import type { SyncDeps } from '../sync/ports';

export type { ShopSettings, ShopSource } from '../registry/shop-settings';

/** One shop's collaborators, as the use cases get them. */
export interface ShopRuntime {
  settings: ShopSettings;
  deps: CheckoutDeps;
  providerModule: ProviderModule;
  /** The shop's ERP sync, when ERP_SINK is set. */
  sync: SyncDeps | undefined;
}

/**
 * Every shop's collaborators, built once per shop on first use and again when its settings
 * change (`depsFor`): the one builder the server, the workers and the CLI use.
 */
export class Shops {
  private readonly built = new Map<string, ShopRuntime>();

  constructor(
    private readonly source: ShopSource,
    private readonly build: (settings: ShopSettings) => ShopRuntime,
  ) {}

  /** The shop's collaborators; undefined for a shop that does not exist (or no longer does). */
  depsFor(id: string): ShopRuntime | undefined {
    const settings = this.source.get(id);
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

  /** The collaborators of the shop a checkout id names (pages reached by the id alone). */
  ofCheckout(checkoutId: string): ShopRuntime | undefined {
    const shop = shopOfCheckout(checkoutId);
    return shop === undefined ? undefined : this.depsFor(shop);
  }

  /** The ids of every shop served. */
  ids(): readonly string[] {
    return this.source.ids();
  }
}

/** The env shop: PLATFORM_EMAIL and the rest of the environment, served as before many shops. */
export function envShopSettings(config: Config): ShopSettings | undefined {
  const { envShop } = config;
  if (!envShop) return undefined;
  const matches = secretMatcher(envShop.routeToken);
  return {
    id: ENV_SHOP_ID,
    name: ENV_SHOP_ID,
    enabled: true,
    platform: envShop.platform,
    provider: envShop.provider,
    tokenMatches: (token) => matches(token),
  };
}
