import { Worker, type ConnectionOptions } from 'bullmq';
import type { z } from 'zod';
import type { ShopDirectory } from '../checkout/shop-directory';
import { recordIdOf, type PaymentRecord } from '../checkout/payment-record';
import { AppError, errorMessage } from '../errors';
import { queuePrefix } from '../infra/keyspace';
import type { Logger } from '../infra/logger';
import { queueTelemetry } from '../infra/tracing';
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
import { notificationRetrySettings, stalledIntervalFor } from './retry-schedules';
import { jobShopOf, type JobShop } from './bullmq-checkout-jobs';
import { jobHandler, runProcessor, servedShop } from './run-processor';
import { logWorkerEvents } from './worker-logging';

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

/** What the sync worker asks of the shop directory: each job's shop, the gate, every shop. */
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

/** Every shop served, as a scheduled pass names them: each with its incarnation. */
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
    provider_ids: { payment: incident.transaction_id ?? null, pix_e2e: null },
    occurred_at: incident.at,
    ...(incident.note ? { note: incident.note } : {}),
  };
}

type SyncPaymentData = z.output<typeof syncPaymentJobSchema>;

/** Delivers one payment record to its shop's sink. */
async function deliverPayment(
  shops: SyncShops,
  logger: Logger,
  data: { shop: string; incarnation?: string },
  record: PaymentRecord,
  deliveryId: string,
): Promise<void> {
  await syncDepsOf(shops, data).sink.deliverPayment({ record, deliveryId });
  logger.info('payment record delivered to the ERP', {
    checkoutId: record.checkout_id,
    event: record.event,
    recordId: record.record_id,
  });
}

/** A payment record's delivery that moved to the failed set: logged for a person. */
function paymentFailed(logger: Logger) {
  return async (data: { record: PaymentRecord }, error: unknown) => {
    logger.error('payment record delivery to the ERP moved to the failed set', {
      checkoutId: data.record.checkout_id,
      event: data.record.event,
      recordId: data.record.record_id,
      reason: errorMessage(error),
    });
  };
}

/**
 * The ERP sync's worker: passes and deliveries, thin over the sync use cases. A scheduled pass
 * becomes one pass job per shop; every other job names its shop.
 */
// eslint-disable-next-line max-lines-per-function -- the sync worker's processor: one handler per job name, each short
export function startSyncWorker(
  shops: SyncShops,
  queue: BullmqSyncQueue,
  options: SyncWorkerOptions,
): Worker {
  const { logger } = options;
  const handlers = {
    pass: jobHandler({
      schema: syncPassJobSchema,
      run: async (data, job) => {
        const { shop } = data;
        if (shop === undefined) return queue.passEach(passShops(shops), job.timestamp);
        return runSyncPass(
          syncDepsOf(shops, { ...data, shop }),
          queue.forShop(shop, data.incarnation),
          {
            pageSize: options.pageSize,
          },
        );
      },
    }),
    'deliver-batch': jobHandler({
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
    }),
    payment: jobHandler<SyncPaymentData>({
      schema: syncPaymentJobSchema,
      run: (data, job) =>
        deliverPayment(shops, logger, data, data.record, job.id ?? data.record.record_id),
      onFinalFailure: paymentFailed(logger),
    }),
    incident: jobHandler({
      schema: syncIncidentJobSchema,
      run: (data, job) => {
        const record = recordOfIncidentJob(data);
        return deliverPayment(shops, logger, data, record, job.id ?? record.record_id);
      },
      onFinalFailure: (data, error) =>
        paymentFailed(logger)({ record: recordOfIncidentJob(data) }, error),
    }),
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
  const telemetry = queueTelemetry();
  const worker = new Worker(QUEUES.sync, runProcessor(handlers, logger, { shops }), {
    ...(telemetry ? { telemetry } : {}),
    connection: options.connection,
    prefix: queuePrefix(options.prefix, QUEUES.sync),
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: stalledIntervalFor(options.lockDurationMs),
    settings: notificationRetrySettings(options.backoffMs),
  });
  logWorkerEvents(worker, logger);
  return worker;
}
