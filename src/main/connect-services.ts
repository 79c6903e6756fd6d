import type { Logger } from '../infra/logger';
import type { RedisCommands } from '../redis/redis';
import type { VendorAccounts } from '../payments/vendor-accounts';
import type { Keyring } from '../secrets/secret-box';
import { ConnectLinks } from '../connect/connect-links';
import type { RegistryStore } from '../shop-registry/ports';
import { ShopCredentials, type RenewalRuns } from '../shop-registry/shop-credentials';
import { RedisConnectStore } from '../store/redis-connect-store';

/**
 * Connecting shops' provider accounts, as the server and the CLI build it: the links and the
 * connected credentials, on the registry's store and a connect store in the same Redis.
 */
export function connectServices(
  redis: RedisCommands,
  prefix: string,
  deps: {
    store: RegistryStore;
    keyring: Keyring | undefined;
    vendor: VendorAccounts;
    providerApiOrigins: readonly string[];
    publicUrl: string;
    logger: Logger;
    /** Where renewals run (the server's providers queue); the CLI renews nothing. */
    renewals?: RenewalRuns;
  },
): { links: ConnectLinks; credentials: ShopCredentials } {
  const { store, keyring, vendor, publicUrl, logger } = deps;
  const connectStore = new RedisConnectStore(redis, prefix);
  const clock = () => new Date();
  const credentials = new ShopCredentials({
    store,
    keyring,
    renewals: deps.renewals,
    vendor,
    providerApiOrigins: deps.providerApiOrigins,
    clock,
    log: logger,
  });
  const links = new ConnectLinks({
    links: connectStore,
    log: logger,
    store,
    credentials,
    vendor,
    keyring,
    publicUrl,
    clock,
  });
  return { links, credentials };
}
