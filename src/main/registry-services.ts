import type { PlatformHostConfig } from '../config';
import { ConfigError } from '../config';
import type { Logger } from '../infra/logger';
import type { VendorAccounts } from '../payments/vendor-accounts';
import type { ConnectorConnection } from '../redis/redis';
import { parseKeyring, type Keyring } from '../secrets/secret-box';
import { ShopAdmin } from '../shop-registry/shop-admin';
import type { RenewalRuns } from '../shop-registry/shop-credentials';
import { RedisShopRegistry } from '../store/redis-shop-registry';
import { RedisShopWork } from '../store/redis-shop-work';
import { connectServices } from './connect-services';
import { platformCredentialCheck } from './credential-check';

/** What the registry's services read of the configuration: the server's and `connector shops`'. */
interface RegistrySettings {
  prefix: string;
  platform: PlatformHostConfig;
  publicUrl: string;
  shops: { secretKeys: string | undefined };
  sandboxAllowed: boolean;
  providerApiOrigins: readonly string[];
  vendor: VendorAccounts;
}

/**
 * The registry's store and verbs, and the links and credentials of connected accounts, as the
 * server and the CLI build them.
 */
export function registryServices(
  redis: ConnectorConnection,
  settings: RegistrySettings,
  logger: Logger,
  renewals?: RenewalRuns,
) {
  const { prefix, vendor, platform, publicUrl, providerApiOrigins } = settings;
  const store = new RedisShopRegistry(redis, prefix);
  const keyring = keyringOf(settings);
  const work = new RedisShopWork(redis, prefix);
  const platformCheck = platformCredentialCheck({
    vendor,
    platform,
    redis,
    prefix,
    publicUrl,
    logger,
  });
  const admin = new ShopAdmin({
    store,
    keyring,
    credentials: platformCheck,
    work,
    publicUrl,
    clock: () => new Date(),
    sandboxAllowed: settings.sandboxAllowed,
    providerApiOrigins,
  });
  const connect = { store, keyring, vendor, providerApiOrigins, publicUrl, logger, renewals };
  return { store, keyring, work, platformCheck, admin, ...connectServices(redis, prefix, connect) };
}

/** SHOP_SECRET_KEYS parsed (the configuration checked it already). */
export function keyringOf(config: {
  shops: { secretKeys: string | undefined };
}): Keyring | undefined {
  if (config.shops.secretKeys === undefined) return undefined;
  const keyring = parseKeyring(config.shops.secretKeys);
  if ('problems' in keyring)
    throw new ConfigError(keyring.problems.map((p) => `SHOP_SECRET_KEYS: ${p}`));
  return keyring;
}
