import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { CheckoutJobs, Notification } from '../checkout/ports';

import { currentLogContext } from '../infra/log-context';
import {
  EXPIRE_ATTEMPTS,
  EXPIRE_BACKOFF_MS,
  PRODUCE_ATTEMPTS,
  PRODUCE_BACKOFF_MS,
  RECONCILE_ATTEMPTS,
} from './retry-schedules';
import {
  jobIds,
  QUEUES,
  type ExpireJob,
  type NotificationJob,
  type ProduceJob,
} from './queue-names';

const DAY_S = 86_400;

/** Event streams are trimmed, so Redis memory stays bounded however long the connector runs. */
export const EVENT_STREAMS = { events: { maxLen: 10_000 } };

/** Completed jobs are trimmed; failed ones stay for weeks, for operators to look at and retry. */
export const RETENTION: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { age: 7 * DAY_S, count: 10_000 },
  removeOnFail: { age: 30 * DAY_S },
};

/** A scheduled job's runs are trimmed to the last ones: the schedule makes a new one each time. */
export const SCHEDULED_RETENTION: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 1000 },
};

/** The checkout use cases' queues, on BullMQ. */
export class BullmqCheckoutJobs implements CheckoutJobs {
  readonly checkoutQueue: Queue;
  readonly notificationQueue: Queue;
  /** Both, for what watches every queue (metrics, dashboard, readiness, close). */
  readonly queues: readonly Queue[];

  constructor(
    connection: ConnectionOptions,
    prefix: string,
    private readonly settings: { notifyMaxAttempts: number; produceBackoffMs?: number },
  ) {
    const streams = EVENT_STREAMS;
    this.checkoutQueue = new Queue(QUEUES.checkout, { connection, prefix, streams });
    this.notificationQueue = new Queue(QUEUES.notifications, { connection, prefix, streams });
    this.queues = [this.checkoutQueue, this.notificationQueue];
  }

  async produce(checkoutId: string, jobKey: string): Promise<void> {
    const data: ProduceJob = { checkoutId, jobKey, requestId: currentLogContext().requestId };
    await this.checkoutQueue.add('produce', data, {
      jobId: jobIds.produce(jobKey),
      attempts: PRODUCE_ATTEMPTS,
      backoff: { type: 'exponential', delay: this.settings.produceBackoffMs ?? PRODUCE_BACKOFF_MS },
      ...RETENTION,
    });
  }

  async scheduleExpiry(checkoutId: string, at: Date): Promise<void> {
    const job = expireJob(checkoutId, at);
    await this.checkoutQueue.add(job.name, job.data, job.opts);
  }

  async scheduleExpiries(expiries: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void> {
    if (expiries.length === 0) return;
    // One MULTI for the lot: an existing job id is left as it is, as with add().
    await this.checkoutQueue.addBulk(expiries.map((e) => expireJob(e.checkoutId, e.at)));
  }

  async notify(notification: Notification): Promise<void> {
    const data: NotificationJob = { ...notification, requestId: currentLogContext().requestId };
    await this.notificationQueue.add(notification.kind, data, {
      jobId: jobIds.notify(notification.kind, notification.checkoutId),
      attempts: this.settings.notifyMaxAttempts,
      backoff: { type: 'notification' },
      ...RETENTION,
    });
  }

  /** The reconciler, as a BullMQ job scheduler: one schedule however many workers upsert it. */
  async scheduleReconciler(everyMs: number): Promise<void> {
    await this.checkoutQueue.upsertJobScheduler(
      'reconcile',
      { every: everyMs },
      {
        name: 'reconcile',
        data: {},
        opts: { attempts: RECONCILE_ATTEMPTS, ...SCHEDULED_RETENTION },
      },
    );
  }

  /** Resolves once both queues have checked their Redis connection. */
  async ready(): Promise<void> {
    await Promise.all([
      this.checkoutQueue.waitUntilReady(),
      this.notificationQueue.waitUntilReady(),
    ]);
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}

/** The job that checks a checkout once it is due to expire; its id makes a repeat a no-op. */
function expireJob(
  checkoutId: string,
  at: Date,
): { name: 'expire'; data: ExpireJob; opts: JobsOptions } {
  return {
    name: 'expire',
    data: { checkoutId, requestId: currentLogContext().requestId },
    opts: {
      jobId: jobIds.expire(checkoutId, at),
      delay: Math.max(0, at.getTime() - Date.now()),
      attempts: EXPIRE_ATTEMPTS,
      backoff: { type: 'exponential', delay: EXPIRE_BACKOFF_MS },
      ...RETENTION,
    },
  };
}
