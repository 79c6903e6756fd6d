import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { CheckoutJobs, Notification } from '../checkout/ports';

import { queuePrefix } from '../redis/keyspace';
import { queueTelemetry } from '../tracing/tracing';
import { currentLogContext } from '../tracing/log-context';
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

export interface JobShop {
  shop: string;
  incarnation?: string;
}

/** A job's shop as its data names it: no `incarnation` field for none (the env shop, a legacy shop). */
export function jobShopOf(shop: string, incarnation = ''): JobShop {
  return incarnation === '' ? { shop } : { shop, incarnation };
}

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

/**
 * A queue of the connector, under its own hash tag (src/redis/keyspace.ts). `readOnly` (the CLI's
 * reads): BullMQ does not write the queue's meta key as it opens it, so reading a prefix that
 * holds nothing leaves it holding nothing.
 */
export function connectorQueue(
  name: string,
  connection: ConnectionOptions,
  prefix: string,
  options: { readOnly?: boolean } = {},
): Queue {
  const telemetry = queueTelemetry();
  return new Queue(name, {
    connection,
    prefix: queuePrefix(prefix, name),
    streams: EVENT_STREAMS,
    ...(options.readOnly ? { skipMetasUpdate: true } : {}),
    // With tracing on, a job carries the trace that queued it (src/tracing/tracing.ts).
    ...(telemetry ? { telemetry } : {}),
  });
}

/**
 * The checkout use cases' queues, on BullMQ: shared by every shop, each job naming its shop.
 * The use cases get one shop's view of them (`forShop`).
 */
export class BullmqCheckoutJobs {
  readonly checkoutQueue: Queue;
  readonly notificationQueue: Queue;
  /** Both, for what watches every queue (metrics, dashboard, readiness, close). */
  readonly queues: readonly Queue[];

  constructor(
    connection: ConnectionOptions,
    prefix: string,
    private readonly settings: { notifyMaxAttempts: number; produceBackoffMs?: number },
  ) {
    this.checkoutQueue = connectorQueue(QUEUES.checkout, connection, prefix);
    this.notificationQueue = connectorQueue(QUEUES.notifications, connection, prefix);
    this.queues = [this.checkoutQueue, this.notificationQueue];
  }

  /**
   * The queues as one shop's use cases see them: every job they add names that shop, and its
   * incarnation ('' for none), so no other shop of that id ever acts on it.
   */
  forShop(shop: string, incarnation = ''): CheckoutJobs {
    const of = jobShopOf(shop, incarnation);
    return {
      produce: (checkoutId, jobKey) => this.produce(of, checkoutId, jobKey),
      scheduleExpiry: (checkoutId, at) => this.scheduleExpiry(of, checkoutId, at),
      scheduleExpiries: (expiries) => this.scheduleExpiries(of, expiries),
      notify: (notification) => this.notify(of, notification),
    };
  }

  async produce(shop: JobShop, checkoutId: string, jobKey: string): Promise<void> {
    const data: ProduceJob = {
      ...shop,
      checkoutId,
      jobKey,
      requestId: currentLogContext().requestId,
    };
    await this.checkoutQueue.add('produce', data, {
      jobId: jobIds.produce(jobKey),
      attempts: PRODUCE_ATTEMPTS,
      backoff: { type: 'exponential', delay: this.settings.produceBackoffMs ?? PRODUCE_BACKOFF_MS },
      ...RETENTION,
    });
  }

  async scheduleExpiry(shop: JobShop, checkoutId: string, at: Date): Promise<void> {
    const job = expireJob(shop, checkoutId, at);
    await this.checkoutQueue.add(job.name, job.data, job.opts);
  }

  async scheduleExpiries(
    shop: JobShop,
    expiries: ReadonlyArray<{ checkoutId: string; at: Date }>,
  ): Promise<void> {
    if (expiries.length === 0) return;
    // One MULTI for the lot: an existing job id is left as it is, as with add().
    await this.checkoutQueue.addBulk(expiries.map((e) => expireJob(shop, e.checkoutId, e.at)));
  }

  async notify(shop: JobShop, notification: Notification): Promise<void> {
    const data: NotificationJob = {
      ...shop,
      ...notification,
      requestId: currentLogContext().requestId,
    };
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
  shop: JobShop,
  checkoutId: string,
  at: Date,
): { name: 'expire'; data: ExpireJob; opts: JobsOptions } {
  return {
    name: 'expire',
    data: { ...shop, checkoutId, requestId: currentLogContext().requestId },
    opts: {
      jobId: jobIds.expire(checkoutId, at),
      delay: Math.max(0, at.getTime() - Date.now()),
      attempts: EXPIRE_ATTEMPTS,
      backoff: { type: 'exponential', delay: EXPIRE_BACKOFF_MS },
      ...RETENTION,
    },
  };
}
