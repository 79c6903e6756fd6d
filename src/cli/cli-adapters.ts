import type { CheckoutStore } from '../checkout/ports';
import type { FailedDeliveries } from '../delivery/ports';

/** The connector's Redis as the CLI reads it: through the same ports the server uses. */
export interface QueueAccess {
  store: CheckoutStore;
  failedDeliveries: FailedDeliveries;
  close(): Promise<void>;
}

/**
 * What the CLI needs built for it. The composition root (main/) provides it, so the commands
 * never construct a store or a queue themselves.
 */
export interface CliAdapters {
  /** Connects to Redis (fails with a CliFailure when it does not answer). */
  openQueues(redis: { url: string; prefix: string }): Promise<QueueAccess>;
}
