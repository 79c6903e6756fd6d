// The only reader of process.env; this index keeps `from '../config'` stable.
export {
  checkoutRouteConfig,
  currencyConfig,
  migrateConfig,
  platformCommandConfig,
  queueConfig,
  shopsConfig,
  syncCommandConfig,
  type ShopsCliConfig,
  type SyncCommandConfig,
} from './command-configs';
export type { LogConfig } from './common-config';
export { ConfigError, readConfig, readEnvironment, type Env } from './env-values';
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
export type { ErpSinkConfig, SyncConfig } from './sync-config';
