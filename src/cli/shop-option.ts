import { InvalidArgumentError, Option } from 'commander';
import {
  loadPlatformConfig,
  loadShopsConfig,
  type LogConfig,
  type PlatformConfig,
} from '../config';
import { ENV_SHOP_ID, isShopId } from '../shop/shop-id';
import type { CliIo } from './cli-io';

/**
 * `--shop <id>`: the shop whose data a command reads (CONTRACT "Shops"); the env shop,
 * `default`, unless said.
 */
export function shopOption(): Option {
  return new Option('--shop <id>', 'the shop (default: the env shop, "default")')
    .default(ENV_SHOP_ID)
    .argParser(parseShopId);
}

export function parseShopId(value: string): string {
  if (!isShopId(value)) throw new InvalidArgumentError('a shop id: 2 to 63 of a-z, 0-9 and -');
  return value;
}

/**
 * The platform account a command calls the platform with for `shop`: the env shop's from the
 * `PLATFORM_*` variables; a registry shop's opened from the registry, which needs `REDIS_URL`,
 * `QUEUE_PREFIX` and `SHOP_SECRET_KEYS` instead (and `PLATFORM_BASE_URL`, every shop's host).
 * `secrets` are what the command's log must scrub.
 */
export async function shopPlatform(
  io: CliIo,
  shop: string,
): Promise<{ platform: PlatformConfig; log: LogConfig; secrets: string[] }> {
  if (shop === ENV_SHOP_ID) return loadPlatformConfig(io.env);
  const config = loadShopsConfig(io.env, { needsKeys: true });
  const { admin, close } = await io.adapters.openShops({ ...config, stderr: io.stderr });
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
