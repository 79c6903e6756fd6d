import type { ConnectionOptions, Queue } from 'bullmq';
import type { PaidServiceSync, PaymentRecords } from '../checkout/ports';
import type { PaymentRecord } from '../checkout/payment-record';
import { batchesOf } from '../sync/batches';
import type { SyncItem, SyncQueue } from '../sync/ports';
import { shopScope } from '../redis/keyspace';
import {
  connectorQueue,
  RETENTION,
  SCHEDULED_RETENTION,
  jobShopOf,
  type JobShop,
} from './bullmq-checkout-jobs';
import {
  jobIds,
  QUEUES,
  type SyncBatchJob,
  type SyncDeliverJob,
  type SyncPassJob,
  type SyncPaymentJob,
} from './queue-names';
import { SYNC_PASS_ATTEMPTS } from './retry-schedules';

/**
 * Services per batch job: small enough that a batch is seconds of work (a worker slot delivers
 * them one after the other), large enough that the queue's own cost per service is small.
 */
export const BATCH_SIZE = 25;

const scopeOf = (shop: JobShop): string => shopScope(shop.shop, shop.incarnation);

const PASS_SCHEDULER = 'sync-pass';

/**
 * The ERP sync's queue: `pass` jobs (on a schedule, SYNC_INTERVAL), `deliver-batch` jobs (a
 * pass's new and changed services, BATCH_SIZE at a time) and `deliver` jobs (one service: a paid
 * checkout's, or one its batch could not deliver), retried on the notifications' schedule, failed
 * ones kept for weeks in the failed set and the dashboard.
 */
export class BullmqSyncQueue {
  readonly queue: Queue;

  constructor(
    connection: ConnectionOptions,
    prefix: string,
    private readonly settings: { maxAttempts: number },
  ) {
    this.queue = connectorQueue(QUEUES.sync, connection, prefix);
  }

  forShop(id: string, incarnation = ''): SyncQueue & PaidServiceSync & PaymentRecords {
    const shop = jobShopOf(id, incarnation);
    return {
      deliver: (items) => this.deliver(shop, items),
      deliverAlone: (items) => this.deliverAlone(shop, items),
      servicePaid: (serviceId, checkoutId) => this.servicePaid(shop, serviceId, checkoutId),
      queue: (record) => this.payment(shop, record),
    };
  }

  /**
   * A payment record for the ERP: one job per record id (a second add while it is kept is a
   * no-op), retried and kept in the failed set as deliveries are.
   */
  async payment(shop: JobShop, record: PaymentRecord): Promise<void> {
    const data: SyncPaymentJob = { ...shop, record };
    await this.queue.add(
      'payment',
      data,
      this.deliverOptions(jobIds.syncPayment(record.record_id)),
    );
  }

  /** One scheduled pass, as a pass job per shop: a slow shop's pass holds back no other's. */
  async passEach(shops: readonly JobShop[], scheduledAt: number): Promise<void> {
    await this.queue.addBulk(
      shops.map((shop) => {
        const data: SyncPassJob = shop;
        return {
          name: 'pass',
          data,
          opts: { jobId: jobIds.syncPass(scopeOf(shop), scheduledAt), ...SCHEDULED_RETENTION },
        };
      }),
    );
  }

  private deliverOptions(jobId: string) {
    return {
      jobId,
      attempts: this.settings.maxAttempts,
      backoff: { type: 'notification' },
      ...RETENTION,
    };
  }

  async deliver(shop: JobShop, items: readonly SyncItem[]): Promise<void> {
    // Batches: the queue's cost is paid per batch, not per service; one round trip for a page.
    await this.queue.addBulk(
      batchesOf(items, BATCH_SIZE).map((batch) => {
        const data: SyncBatchJob = { ...shop, items: batch };
        return {
          name: 'deliver-batch',
          data,
          opts: this.deliverOptions(jobIds.syncBatch(scopeOf(shop), batch)),
        };
      }),
    );
  }

  async deliverAlone(shop: JobShop, items: readonly SyncItem[]): Promise<void> {
    await this.queue.addBulk(
      items.map((item) => {
        const data: SyncDeliverJob = { ...shop, ...item, cause: 'pass' };
        return {
          name: 'deliver',
          data,
          opts: this.deliverOptions(
            jobIds.syncDeliver(scopeOf(shop), item.serviceId, item.fingerprint),
          ),
        };
      }),
    );
  }

  async servicePaid(shop: JobShop, serviceId: number, checkoutId: string): Promise<void> {
    const data: SyncDeliverJob = { ...shop, serviceId, cause: 'paid' };
    await this.queue.add('deliver', data, this.deliverOptions(jobIds.syncPaid(checkoutId)));
  }

  /** Runs a pass every `everyMs`; with undefined, removes the schedule (SYNC_INTERVAL unset). */
  async schedule(everyMs: number | undefined): Promise<void> {
    if (everyMs === undefined) {
      await this.queue.removeJobScheduler(PASS_SCHEDULER);
      return;
    }
    await this.queue.upsertJobScheduler(
      PASS_SCHEDULER,
      { every: everyMs },
      {
        name: 'pass',
        data: {},
        opts: { attempts: SYNC_PASS_ATTEMPTS, ...SCHEDULED_RETENTION },
      },
    );
  }
}
