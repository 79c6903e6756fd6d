import type { Worker } from 'bullmq';
import { z } from 'zod';
import { renewJobSchema, type RenewJob } from './bullmq-provider-jobs';
import { QUEUES } from './queue-names';
import { jobHandler, runProcessor } from './run-processor';
import { startWorker, type StartWorkerOptions } from './start-worker';

/** What the providers queue's jobs run (the composition root's use cases). */
export interface ProviderTasks {
  /** One shop's renewal; its outcome is the job's return value, which its callers wait for. */
  renew(job: RenewJob): Promise<string>;
  renewDue(): Promise<void>;
  registerWebhooks(): Promise<void>;
}

const passJobSchema = z.object({ requestId: z.string().optional() });

/** The providers queue's worker; processors stay thin over the tasks. */
export function startProviderWorker(tasks: ProviderTasks, options: StartWorkerOptions): Worker {
  const handlers = {
    renew: jobHandler({ schema: renewJobSchema, run: (data) => tasks.renew(data) }),
    'renew-due': jobHandler({ schema: passJobSchema, run: () => tasks.renewDue() }),
    'register-webhooks': jobHandler({ schema: passJobSchema, run: () => tasks.registerWebhooks() }),
  };
  // The renewal pass waits for the renewals it queues: a slot is always left for them.
  const concurrency = Math.max(2, options.concurrency);
  return startWorker(QUEUES.providers, runProcessor(handlers, options.logger), {
    ...options,
    concurrency,
  });
}
