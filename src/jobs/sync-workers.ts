import type { ConnectionOptions, Worker } from 'bullmq';
import type { ShopDirectory } from '../checkout/shop-directory';
import { recordIdOf, type PaymentRecord } from '../checkout/payment-record';
import { AppError, errorMessage } from '../errors';
import type { Logger } from '../infra/logger';
import { deliverBatch, deliverService } from '../sync/deliver-service';
import type { SyncDeps } from '../sync/ports';
import type { BullmqSyncQueue } from './bullmq-sync-queue';
import { runSyncPass } from '../sync/sync-pass';
import {
  syncBatchJobSchema,
  syncDeliverJobSchema,
  syncIncidentJobSchema,
  syncPassJobSchema,
  syncPaymentJobSchema,
  QUEUES,
  type SyncIncidentJob,
} from './queue-names';
import { jobShopOf, type JobShop } from './bullmq-checkout-jobs';
import { jobHandler, runProcessor, servedShop } from './run-processor';
import { startWorker } from './start-worker';

export interface SyncWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  /** Base delay of the retry schedule (NOTIFY_BACKOFF_MS: deliveries retry as notifications do). */
  backoffMs: number;
  lockDurationMs: number;
  concurrency: number;
  pageSize?: number;
  logger: Logger;
}

export type SyncShops = Pick<
  ShopDirectory<{ sync: SyncDeps | undefined; settings: { incarnation: string } }>,
  'cached' | 'forJob' | 'purge' | 'ids'
>;

/** A shop's sync collaborators (`servedShop`: retried while the shop is not served). */
function syncDepsOf(shops: SyncShops, job: { shop: string; incarnation?: string }): SyncDeps {
  const deps = servedShop(shops, job).sync;
  if (!deps) throw new AppError('SHOP_NOT_FOUND', `No shop "${job.shop}" is synced.`);
  return deps;
}

function passShops(shops: SyncShops): JobShop[] {
  return shops.ids().flatMap((shop) => {
    const incarnation = shops.cached(shop)?.settings.incarnation;
    return incarnation === undefined ? [] : [jobShopOf(shop, incarnation)];
  });
}

/**
 * An incident the previous release queued (`incident` jobs, `X-Connector-Event:
 * payment_incident`), as the payment record it is now: what it said, and null for the figures it
 * did not carry. Its record id is the one this release gives the same incident, so the ERP
 * dedupes the two should both arrive.
 */
export function recordOfIncidentJob(data: SyncIncidentJob): PaymentRecord {
  const { incident } = data;
  return {
    // The previous release's: what it carried, the rest null.
    schema_version: 1,
    event: incident.kind,
    record_id: recordIdOf(incident.checkout_id, incident.kind, incident.transaction_id),
    shop: data.shop ?? 'default',
    service_id: incident.service_id,
    checkout_id: incident.checkout_id,
    provider: incident.provider,
    method: null,
    installments: null,
    amounts: {
      order: null,
      interest: null,
      paid: incident.amount?.amount_minor ?? null,
      provider_fee: null,
      vendor_fee: null,
      net: null,
    },
    currency: incident.amount?.currency ?? null,
    release_date: null,
    provider_ids: { payment: incident.transaction_id ?? null, pix_e2e: null, pix_txid: null },
    paid_at: null,
    payer: null,
    card: null,
    nfe: { tPag: null, tBand: null, cAut: null, CNPJ: null },
    plan: null,
    occurred_at: incident.at,
    ...(incident.note ? { note: incident.note } : {}),
  };
}

async function deliverPayment(
  shops: SyncShops,
  logger: Logger,
  data: { shop: string; incarnation?: string },
  record: PaymentRecord,
  deliveryId: string,
): Promise<void> {
  const deps = syncDepsOf(shops, data);
  await deps.sink.deliverPayment({ record, deliveryId });
  // Kept on the checkout as long as it is (its evidence), not only while the job is.
  await deps.acknowledgements.markRecordAcknowledged(
    record.checkout_id,
    record.record_id,
    new Date(),
  );
  logger.info('payment record delivered to the ERP', {
    checkoutId: record.checkout_id,
    event: record.event,
    recordId: record.record_id,
  });
}

async function paymentFailed(logger: Logger, record: PaymentRecord, error: unknown) {
  logger.error('payment record delivery to the ERP moved to the failed set', {
    checkoutId: record.checkout_id,
    event: record.event,
    recordId: record.record_id,
    reason: errorMessage(error),
  });
}

function passHandler(shops: SyncShops, queue: BullmqSyncQueue, pageSize: number | undefined) {
  return jobHandler({
    schema: syncPassJobSchema,
    run: async (data, job) => {
      const { shop } = data;
      if (shop === undefined) return queue.passEach(passShops(shops), job.timestamp);
      const deps = syncDepsOf(shops, { ...data, shop });
      return runSyncPass(deps, queue.forShop(shop, data.incarnation), { pageSize });
    },
  });
}

/** A batch of services delivered together; each that failed is queued to be retried alone. */
function batchHandler(shops: SyncShops, queue: BullmqSyncQueue, logger: Logger) {
  return jobHandler({
    schema: syncBatchJobSchema,
    run: (data) =>
      deliverBatch(syncDepsOf(shops, data), data.items, async (failed, reasons) => {
        failed.forEach((item, i) =>
          logger.warn('service not delivered to the ERP; it is retried on its own', {
            serviceId: item.serviceId,
            reason: errorMessage(reasons[i]),
          }),
        );
        await queue.deliverAlone(jobShopOf(data.shop, data.incarnation), failed);
      }),
  });
}

/** Payment records, and the incidents the previous release queued, each to its shop's sink. */
function paymentHandlers(shops: SyncShops, logger: Logger) {
  return {
    payment: jobHandler({
      schema: syncPaymentJobSchema,
      run: (data, job) =>
        deliverPayment(shops, logger, data, data.record, job.id ?? data.record.record_id),
      onFinalFailure: (data, error) => paymentFailed(logger, data.record, error),
    }),
    incident: jobHandler({
      schema: syncIncidentJobSchema,
      run: (data, job) => {
        const record = recordOfIncidentJob(data);
        return deliverPayment(shops, logger, data, record, job.id ?? record.record_id);
      },
      onFinalFailure: (data, error) => paymentFailed(logger, recordOfIncidentJob(data), error),
    }),
  };
}

/**
 * The ERP sync's worker: passes and deliveries, thin over the sync use cases. A scheduled pass
 * becomes one pass job per shop; every other job names its shop.
 */
export function startSyncWorker(
  shops: SyncShops,
  queue: BullmqSyncQueue,
  options: SyncWorkerOptions,
): Worker {
  const { logger } = options;
  const handlers = {
    pass: passHandler(shops, queue, options.pageSize),
    'deliver-batch': batchHandler(shops, queue, logger),
    ...paymentHandlers(shops, logger),
    deliver: jobHandler({
      schema: syncDeliverJobSchema,
      run: (data) => deliverService(syncDepsOf(shops, data), data.serviceId),
      onFinalFailure: async (data, error) => {
        logger.error('service delivery to the ERP moved to the failed set', {
          serviceId: data.serviceId,
          reason: errorMessage(error),
        });
      },
    }),
  };
  return startWorker(QUEUES.sync, runProcessor(handlers, logger, { shops }), {
    ...options,
    retryBackoffMs: options.backoffMs,
  });
}
