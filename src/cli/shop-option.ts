import { InvalidArgumentError, Option } from 'commander';
import type { LogConfig, PlatformConfig } from '../config';
import { isShopId, shopOrEnv } from '../shop/shop-id';
import type { CliIo } from './cli-io';

/** `--shop <id>` (CONTRACT "Shops"); without it, the env shop. */
export function shopOption(): Option {
  return new Option('--shop <id>', 'the shop whose data it reads')
    .default(shopOrEnv(undefined), 'the env shop, "default"')
    .argParser(parseShopId);
}

export function parseShopId(value: string): string {
  if (!isShopId(value)) throw new InvalidArgumentError('a shop id: 2 to 63 of a-z, 0-9 and -');
  return value;
}

export function shopPlatform(
  io: CliIo,
  shop: string,
): Promise<{ platform: PlatformConfig; log: LogConfig; secrets: string[] }> {
  return io.adapters.shopPlatform(io.env, shop, io.stderr);
}
