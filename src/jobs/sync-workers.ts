import { Worker, type ConnectionOptions } from 'bullmq';
import type { ShopDirectory } from '../checkout/shop-directory';
import { AppError, errorMessage } from '../errors';
import { queuePrefix } from '../infra/keyspace';
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
  QUEUES,
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
    incident: jobHandler({
      schema: syncIncidentJobSchema,
      run: async (data, job) => {
        await syncDepsOf(shops, data).sink.deliverIncident({
          incident: data.incident,
          deliveryId: job.id ?? data.incident.checkout_id,
        });
        logger.info('incident delivered to the ERP', {
          checkoutId: data.incident.checkout_id,
          kind: data.incident.kind,
        });
      },
      onFinalFailure: async (data, error) => {
        logger.error('incident delivery to the ERP moved to the failed set', {
          checkoutId: data.incident.checkout_id,
          kind: data.incident.kind,
          reason: errorMessage(error),
        });
      },
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
  const worker = new Worker(QUEUES.sync, runProcessor(handlers, logger, { shops }), {
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
