import type { CheckoutDeps } from '../checkout/checkout-deps';
import type { Config } from '../config';
import type { ProviderModule } from '../payments/provider-module';
import type { ProviderSettings } from '../payments/registry';
import { ENV_SHOP_ID } from '../shops/shop-id';
import type { SyncDeps } from '../sync/ports';

/** What one shop is served with: its platform account and its payment provider. */
export interface ShopSettings {
  id: string;
  name: string;
  /** A disabled shop takes no new checkout; what it has in flight still completes. */
  enabled: boolean;
  /** The shop's platform account (the platform's host is every shop's: PLATFORM_BASE_URL). */
  platform: { email: string; password: string; apiKey: string };
  provider: ProviderSettings;
}

/** One shop's collaborators, as the use cases get them. */
export interface ShopRuntime {
  settings: ShopSettings;
  deps: CheckoutDeps;
  providerModule: ProviderModule;
  /** The shop's ERP sync, when ERP_SINK is set. */
  sync: SyncDeps | undefined;
}

/** Where shops' settings come from: the env shop, and the registry's shops. */
export interface ShopSource {
  /** The shop's settings as they stand; the same object until they change. */
  get(id: string): ShopSettings | undefined;
  ids(): readonly string[];
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

  /** The ids of every shop served. */
  ids(): readonly string[] {
    return this.source.ids();
  }
}

/** The env shop: PLATFORM_EMAIL and the rest of the environment, served as before many shops. */
export function envShopSettings(config: Config): ShopSettings {
  const { platform, checkout } = config;
  return {
    id: ENV_SHOP_ID,
    name: ENV_SHOP_ID,
    enabled: true,
    platform: { email: platform.email, password: platform.password, apiKey: platform.apiKey },
    provider: {
      name: checkout.provider,
      sandboxInProduction: checkout.sandboxInProduction,
      stripe: checkout.stripe,
      mercadopago: checkout.mercadopago,
    },
  };
}
