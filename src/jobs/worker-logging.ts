import { UnrecoverableError, type Worker } from 'bullmq';
import { connectionErrorLogger, type Logger } from '../infra/logger';

/**
 * What every worker of the connector logs about itself, in the same words whatever its queue,
 * so one query watches them all: its Redis connection errors (once per distinct error per
 * window), and each failed attempt, as `job failed, will retry` (warn) or `job failed for good`
 * (error, a person must look).
 */
export function logWorkerEvents(worker: Worker, logger: Logger): void {
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
