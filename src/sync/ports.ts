import type { Log } from '../log';
import type { PlatformClient } from '../platform/platform-client';

/** What the ERP answered to a service handed to it. */
export interface SinkReceipt {
  /** The ERP's order code for the service, when it gave one: linked back to the platform. */
  internalCode?: string;
}

/** Where services go: the ERP's webhook, or a folder it imports from. */
export interface ErpSink {
  readonly kind: 'webhook' | 'directory';
  /**
   * Hands one service to the ERP, whole: `sent` is the platform's answer exactly as it came.
   * `deliveryId` is the same on every attempt of one version of one service (the ERP may dedupe
   * on it). Failures are thrown, as AppError saying whether a retry can help.
   */
  deliver(delivery: { serviceId: number; sent: unknown; deliveryId: string }): Promise<SinkReceipt>;
  /**
   * Hands the ERP a payment record (a checkout paid, or an incident after its outcome:
   * docs/payments-to-the-erp.md), as it is, `deliveryId` the same on every attempt. Failures are
   * thrown as for services.
   */
  deliverPayment(delivery: { record: ErpPayment; deliveryId: string }): Promise<void>;
}

/**
 * A payment record as the sinks see it (src/checkout/payment-record.ts builds it): JSON sent as
 * it is; the sinks read only its ids.
 */
export interface ErpPayment {
  event: string;
  record_id: string;
  checkout_id: string;
}

/**
 * What was delivered: a fingerprint per service (id, status code, status dates), kept in Redis,
 * so a restart resends nothing and a change is seen.
 */
export interface SyncLedger {
  /** The fingerprints last delivered for `serviceIds`, in order (undefined: never delivered). */
  fingerprints(serviceIds: readonly number[]): Promise<Array<string | undefined>>;
  /** Records that these versions reached the ERP (one write). */
  remember(delivered: readonly SyncItem[]): Promise<void>;
}

/** A service version to deliver. */
export interface SyncItem {
  serviceId: number;
  fingerprint: string;
}

/** The sync's queue: deliveries with retries, the failed set and the dashboard. */
export interface SyncQueue {
  /** Enqueues a pass's page of new and changed services, in batches. */
  deliver(items: readonly SyncItem[]): Promise<void>;
  /**
   * Enqueues services one job each (those a batch could not deliver): retried on their own,
   * then in the failed set; the same service version enqueued twice is one job.
   */
  deliverAlone(items: readonly SyncItem[]): Promise<void>;
}

/** The platform calls the sync makes. */
export type SyncPlatform = Pick<
  PlatformClient,
  'iterateServicePages' | 'getServiceAsSent' | 'linkService'
>;

/** Everything the sync use cases work with, given by the composition root. */
/** Where the ERP's acknowledgement of a payment record is kept: on its checkout's record. */
export interface PaymentAcknowledgements {
  markRecordAcknowledged(checkoutId: string, recordId: string, at: Date): Promise<void>;
}

/**
 * What the connector adds to services for the ERP (`connector_payment`): a planned order's payment
 * (its page's URL, what is paid, its balance and due day); undefined for the others. Read a page
 * of services at a time.
 */
export interface ServicePayments {
  of(serviceIds: readonly number[]): Promise<Array<Record<string, unknown> | undefined>>;
}

export interface SyncDeps {
  platform: SyncPlatform;
  /** The payments of planned orders, delivered with their services; absent: none added. */
  payments?: ServicePayments;
  ledger: SyncLedger;
  sink: ErpSink;
  /** The checkouts' records, told when the ERP acknowledged one of their payment records. */
  acknowledgements: PaymentAcknowledgements;
  /** Status codes whose services are synced (SYNC_STATUSES). */
  statuses: readonly number[];
  log: Log;
}

/** Counts of one pass. */
export interface PassCounts {
  seen: number;
  new: number;
  changed: number;
  unchanged: number;
}
