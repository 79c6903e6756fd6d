import { Worker, type ConnectionOptions } from 'bullmq';
import { errorMessage } from '../errors';
import type { Logger } from '../infra/logger';
import { deliverBatch, deliverService } from '../sync/deliver-service';
import type { SyncDeps, SyncQueue } from '../sync/ports';
import { runSyncPass } from '../sync/sync-pass';
import { syncBatchJobSchema, syncDeliverJobSchema, syncPassJobSchema, QUEUES } from './queue-names';
import { notificationRetrySettings, stalledIntervalFor } from './retry-schedules';
import { jobHandler, runProcessor } from './run-processor';
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

/** The ERP sync's worker: passes and deliveries, thin over the sync use cases. */
export function startSyncWorker(
  deps: SyncDeps,
  queue: SyncQueue,
  options: SyncWorkerOptions,
): Worker {
  const { logger } = options;
  const handlers = {
    pass: jobHandler({
      schema: syncPassJobSchema,
      run: () => runSyncPass(deps, queue, { pageSize: options.pageSize }),
    }),
    'deliver-batch': jobHandler({
      schema: syncBatchJobSchema,
      run: (data) =>
        deliverBatch(deps, data.items, async (failed, reasons) => {
          failed.forEach((item, i) =>
            logger.warn('service not delivered to the ERP; it is retried on its own', {
              serviceId: item.serviceId,
              reason: errorMessage(reasons[i]),
            }),
          );
          await queue.deliverAlone(failed);
        }),
    }),
    deliver: jobHandler({
      schema: syncDeliverJobSchema,
      run: (data) => deliverService(deps, data.serviceId),
      onFinalFailure: async (data, error) => {
        logger.error('service delivery to the ERP moved to the failed set', {
          serviceId: data.serviceId,
          reason: errorMessage(error),
        });
      },
    }),
  };
  const worker = new Worker(QUEUES.sync, runProcessor(handlers, logger), {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: stalledIntervalFor(options.lockDurationMs),
    settings: notificationRetrySettings(options.backoffMs),
  });
  logWorkerEvents(worker, logger);
  return worker;
}
