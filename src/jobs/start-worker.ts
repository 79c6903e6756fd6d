import { UnrecoverableError, Worker, type ConnectionOptions, type Processor } from 'bullmq';
import { connectionErrorLogger, type Logger } from '../infra/logger';
import { queuePrefix } from '../redis/keyspace';
import { queueTelemetry } from '../tracing/tracing';
import { notificationRetrySettings, stalledIntervalFor } from './retry-schedules';

export interface StartWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  /** Base delay of the notifications' retry schedule, for the queues that use it. */
  retryBackoffMs?: number;
  logger: Logger;
}

export function startWorker(
  queue: string,
  processor: Processor,
  options: StartWorkerOptions,
): Worker {
  const telemetry = queueTelemetry();
  const { retryBackoffMs } = options;
  const worker = new Worker(queue, processor, {
    connection: options.connection,
    prefix: queuePrefix(options.prefix, queue),
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: stalledIntervalFor(options.lockDurationMs),
    ...(retryBackoffMs === undefined
      ? {}
      : { settings: notificationRetrySettings(retryBackoffMs) }),
    // With tracing on, each attempt joins the trace that queued its job (src/tracing/tracing.ts).
    ...(telemetry ? { telemetry } : {}),
  });
  logWorkerEvents(worker, options.logger);
  return worker;
}

/**
 * What every worker of the connector logs about itself, in the same words whatever its queue,
 * so one query watches them all: its Redis connection errors (once per distinct error per
 * window), and each failed attempt, as `job failed, will retry` (warn) or `job failed for good`
 * (error, a person must look).
 */
function logWorkerEvents(worker: Worker, logger: Logger): void {
  worker.on('error', connectionErrorLogger(logger, { worker: worker.name }));
  worker.on('failed', (job, error) => {
    const final =
      !job || error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    logger.log(final ? 'error' : 'warn', final ? 'job failed for good' : 'job failed, will retry', {
      queue: worker.name,
      jobId: job?.id,
      jobName: job?.name,
      attemptsMade: job?.attemptsMade,
      errMessage: error.message,
      // What the platform or the provider said: logged here, never in an answer or a reason.
      ...(typeof error.cause === 'string' ? { cause: error.cause } : {}),
    });
  });
}
