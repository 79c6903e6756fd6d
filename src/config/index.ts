/**
 * The environment, through zod schemas: the only reader of process.env. One file per concern;
 * this index keeps `import ... from '../config'` stable for the rest of src/ and the tests.
 */
export {
  loadCheckoutRouteConfig,
  loadCurrency,
  loadMigrateConfig,
  loadPlatformConfig,
  loadQueueConfig,
  loadSyncConfig,
} from './cli-configs';
export type { LogConfig } from './common-config';
export { ConfigError, readEnvironment, type Env } from './env-values';
export { envShopSummary, type EnvShopSummary } from './env-shop-config';
export {
  platformSecrets,
  type PlatformAccount,
  type PlatformConfig,
  type PlatformHostConfig,
} from './platform-config';
export type { RedisConfig } from './redis-config';
export { SECRET_VARIABLES } from './secret-variables';
export { loadConfig, type Config, type RateLimitConfig } from './server-config';
export { CONFIG_VARIABLES } from './server-schema';
export { loadShopsConfig, type ShopsCliConfig } from './shops-cli-config';
export type { ErpSinkConfig, SyncConfig } from './sync-config';
