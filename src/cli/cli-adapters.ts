import type { Writable } from 'node:stream';
import type { CheckoutRecords, ReconcileLine } from '../checkout/ports';
import type { DeliveryHistory, FailedDeliveries } from '../delivery/ports';
import type {
  Env,
  LogConfig,
  PlatformConfig,
  RedisConfig,
  ShopsCliConfig,
  SyncCommandConfig,
} from '../config';
import type { CredentialCheck } from '../shop-registry/ports';
import type { ConnectLinks } from '../connect/connect-links';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import type { SyncDeps } from '../sync/ports';

/** The connector's Redis as the CLI reads it, through the server's ports. */
export interface QueueAccess {
  store: CheckoutRecords;
  line: Pick<ReconcileLine, 'unreadableCheckouts'>;
  failedDeliveries: FailedDeliveries;
  deliveryHistory: DeliveryHistory;
  close(): Promise<void>;
}

export interface SyncAccess {
  deps: SyncDeps;
  close(): Promise<void>;
}

/** Built by the composition root (main/), so commands never construct a store or a queue. */
export interface CliAdapters {
  migrate(
    redis: RedisConfig,
    options: { dryRun: boolean; retentionMs: number; pixWatchDays: number },
  ): Promise<{
    moved: { checkouts: number; queues: number; ledger: number; rateLimits: number };
    conflicts: Array<{ from: string; to: string }>;
    retention: { extended: number; seen: number };
    /** Paid Pix of the previous release put in the watch. */
    watch: { watched: number };
    connect: { moved: number; dropped: number };
  }>;
  /** The registry's verbs and the credential check they run before storing (doctor's too). */
  openShops(config: ShopsCliConfig & { stderr: Writable }): Promise<{
    admin: ShopAdmin;
    credentials: CredentialCheck;
    links: ConnectLinks;
    close(): Promise<void>;
  }>;
  /** `shop`'s platform account and what its log must scrub; ConfigError when a variable lacks. */
  shopPlatform(
    env: Env,
    shop: string,
    stderr: Writable,
  ): Promise<{ platform: PlatformConfig; log: LogConfig; secrets: string[] }>;
  /** Fails with a CliFailure when Redis does not answer; `store` and `line` are `shop`'s. */
  openQueues(redis: RedisConfig, shop?: string): Promise<QueueAccess>;
  openSync(
    config: SyncCommandConfig & {
      shop: string;
      platform: PlatformConfig;
      stderr: Writable;
    },
  ): Promise<SyncAccess>;
}
