import type { Writable } from 'node:stream';
import type { CheckoutRecords, ReconcileLine } from '../checkout/ports';
import type { DeliveryHistory, FailedDeliveries } from '../delivery/ports';
import type {
  Env,
  SyncConfig,
  ErpSinkConfig,
  LogConfig,
  PlatformConfig,
  RedisConfig,
  ShopsCliConfig,
} from '../config';
import type { CredentialCheck } from '../shop-registry/ports';
import type { ConnectLinks } from '../connect/connect-links';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import type { SyncDeps } from '../sync/ports';

/** The connector's Redis as the CLI reads it: through the same ports the server uses. */
export interface QueueAccess {
  store: CheckoutRecords;
  /** The shop's reconciler line: the records it parked as unreadable. */
  line: Pick<ReconcileLine, 'unreadableCheckouts'>;
  failedDeliveries: FailedDeliveries;
  deliveryHistory: DeliveryHistory;
  close(): Promise<void>;
}

/** What `connector sync` works with: the sync's collaborators, as the server builds them. */
export interface SyncAccess {
  deps: SyncDeps;
  close(): Promise<void>;
}

/**
 * What the CLI needs built for it. The composition root (main/) provides it, so the commands
 * never construct a store or a queue themselves.
 */
export interface CliAdapters {
  /** Moves a previous release's data to the current layout (`connector migrate`). */
  migrate(
    redis: RedisConfig,
    options: { dryRun: boolean; retentionMs: number },
  ): Promise<{
    moved: { checkouts: number; queues: number; ledger: number; rateLimits: number };
    conflicts: Array<{ from: string; to: string }>;
    /** Checkout records given CHECKOUT_RETENTION_DAYS after their outcome. */
    retention: { extended: number; seen: number };
    /** Connections under way: pending accounts moved, states of the previous layout dropped. */
    connect: { moved: number; dropped: number };
  }>;
  /**
   * The registry's verbs on the connector's Redis (`connector shops`), and the check of a shop's
   * credentials they run before storing them (`connector doctor` runs it on the env shop too).
   */
  openShops(config: ShopsCliConfig & { stderr: Writable }): Promise<{
    admin: ShopAdmin;
    credentials: CredentialCheck;
    /** The links that connect a shop's provider account (`shops connect`). */
    links: ConnectLinks;
    close(): Promise<void>;
  }>;
  /**
   * The platform account a command calls the platform with for `shop`, and what its log must
   * scrub: the env shop's from the `PLATFORM_*` variables; a registry shop's opened from the
   * registry, which needs `REDIS_URL`, `QUEUE_PREFIX` and `SHOP_SECRET_KEYS` instead (and
   * `PLATFORM_BASE_URL`, every shop's host). Throws ConfigError for a variable it lacks.
   */
  shopPlatform(
    env: Env,
    shop: string,
    stderr: Writable,
  ): Promise<{ platform: PlatformConfig; log: LogConfig; secrets: string[] }>;
  /**
   * Connects to Redis (fails with a CliFailure when it does not answer); `store` and `line` are
   * `shop`'s (the env shop's unless said).
   */
  openQueues(redis: RedisConfig, shop?: string): Promise<QueueAccess>;
  /** The sync's platform client, ledger (on Redis) and sink (fails with a CliFailure without Redis). */
  openSync(config: {
    /** The shop whose services are synced: its ledger, its sink folder or signed name. */
    shop: string;
    platform: PlatformConfig;
    log: LogConfig;
    redis: RedisConfig;
    sync: SyncConfig & { sink: ErpSinkConfig };
    secrets: string[];
    stderr: Writable;
  }): Promise<SyncAccess>;
}
