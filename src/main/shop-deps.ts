import type { Writable } from 'node:stream';
import {
  platformCommandConfig,
  readConfig,
  shopsConfig,
  type Config,
  type Env,
  type LogConfig,
  type PlatformConfig,
  type ShopsCliConfig,
} from '../config';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import { shopDocumentFromEnv } from '../shop-registry/shop-document';
import { settingsOf, type ShopSettings, type ShopSource } from '../shop-registry/shop-settings';
import { ENV_SHOP_ID } from '../shop/shop-id';
import { secretMatcher } from '../secrets/token-match';

/**
 * The shops this process serves: the registry's, and the env shop when PLATFORM_EMAIL and the
 * rest of the environment describe one. The env shop's document is made by
 * `shopDocumentFromEnv` and served as a registry shop's is (`settingsOf`), from memory: it
 * changes only with the process's environment, and the registry knows nothing of it. Its id is
 * always taken, by incarnation '': a process without its variables leaves its jobs to one that
 * has them (`unserved`), and never takes it for a removed shop.
 */
export function servedShops(config: Config, registry: ShopSource): ShopSource {
  const envShop = envShopSettings(config);
  const served = { settings: envShop, stored: '' };
  return {
    get: (id) => (id === ENV_SHOP_ID ? envShop : registry.get(id)),
    ids: () => (envShop ? [ENV_SHOP_ID, ...registry.ids()] : registry.ids()),
    fresh: (id) => (id === ENV_SHOP_ID ? Promise.resolve(served) : registry.fresh(id)),
  };
}

/** The env shop's settings, as `servedShops` serves them; undefined without PLATFORM_EMAIL. */
export function envShopSettings(config: Config): ShopSettings | undefined {
  const { envShop } = config;
  if (!envShop) return undefined;
  const matches = secretMatcher(envShop.routeToken);
  return settingsOf(shopDocumentFromEnv(envShop), {
    incarnation: '',
    enabled: true,
    tokenMatches: (token) => matches(token),
    sandboxInProduction: config.checkout.sandboxInProduction,
  });
}

/**
 * The platform account a CLI command calls the platform with for `shop`: the env shop's from
 * the `PLATFORM_*` variables; a registry shop's opened from the registry (`openShops`), which
 * needs `REDIS_URL`, `QUEUE_PREFIX` and `SHOP_SECRET_KEYS` instead. `secrets` are what the
 * command's log must scrub.
 */
export async function shopPlatformAccount(
  env: Env,
  shop: string,
  openShops: (
    config: ShopsCliConfig & { stderr: Writable },
  ) => Promise<{ admin: ShopAdmin; close(): Promise<void> }>,
  stderr: Writable,
): Promise<{ platform: PlatformConfig; log: LogConfig; secrets: string[] }> {
  if (shop === ENV_SHOP_ID) return readConfig(platformCommandConfig, env);
  const config = readConfig(shopsConfig({ keys: true, platform: true }), env);
  const { admin, close } = await openShops({ ...config, stderr });
  try {
    const account = await admin.platformAccount(shop);
    return {
      platform: { ...config.platform, ...account },
      log: config.log,
      secrets: [...config.secrets, account.password, account.apiKey],
    };
  } finally {
    await close();
  }
}
