import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CHECKOUT_ID_PATTERN } from '../checkout/checkout-record';

/** Queue names; the Redis prefix (QUEUE_PREFIX) keeps several connectors apart. */
export const QUEUES = {
  checkout: 'checkout',
  notifications: 'notifications',
  sync: 'sync',
} as const;

/** The job names of each queue; a job of any other name fails for good. */
export const JOB_NAMES = {
  checkout: ['produce', 'expire', 'reconcile'],
  notifications: ['finish', 'cancel'],
  sync: ['pass', 'deliver', 'deliver-batch'],
} as const;

const checkoutId = z.string().regex(CHECKOUT_ID_PATTERN, 'not a checkout id');

export const produceJobSchema = z.object({
  checkoutId,
  jobKey: z.string(),
  requestId: z.string().optional(),
});
export const expireJobSchema = z.object({ checkoutId, requestId: z.string().optional() });
export const reconcileJobSchema = z.object({ requestId: z.string().optional() });
export const notificationJobSchema = z.object({
  checkoutId,
  kind: z.enum(['finish', 'cancel']),
  requestId: z.string().optional(),
});

export const syncPassJobSchema = z.object({ requestId: z.string().optional() });
export const syncDeliverJobSchema = z.object({
  serviceId: z.number().int().positive(),
  /** The version a pass saw; the delivery reads the service again and sends what it finds. */
  fingerprint: z.string().optional(),
  /** Why: a pass saw it new or changed, or a checkout of it was paid. */
  cause: z.enum(['pass', 'paid']).default('pass'),
  requestId: z.string().optional(),
});

export const syncBatchJobSchema = z.object({
  items: z
    .array(z.object({ serviceId: z.number().int().positive(), fingerprint: z.string() }))
    .min(1)
    .max(1000),
  requestId: z.string().optional(),
});

export type SyncDeliverJob = z.input<typeof syncDeliverJobSchema>;
export type SyncBatchJob = z.input<typeof syncBatchJobSchema>;
export type ProduceJob = z.infer<typeof produceJobSchema>;
export type ExpireJob = z.infer<typeof expireJobSchema>;
export type NotificationJob = z.infer<typeof notificationJobSchema>;

/**
 * BullMQ job ids: ':' is reserved (BullMQ rejects it), and one id per piece of work makes a
 * second add of the same work a no-op.
 */
export const jobIds = {
  produce: (jobKey: string) => `produce-${jobKey.replace(/:/g, '-')}`,
  expire: (checkoutId: string, at: Date) => `expire-${checkoutId}-${at.getTime()}`,
  notify: (kind: 'finish' | 'cancel', checkoutId: string) => `${kind}-${checkoutId}`,
  /** One job per version of a service: a pass that sees it again adds nothing. */
  syncDeliver: (serviceId: number, fingerprint: string) => `sync-${serviceId}-${fingerprint}`,
  /** One job per set of service versions: a pass that finds the same page again adds nothing. */
  syncBatch: (items: ReadonlyArray<{ serviceId: number; fingerprint: string }>) =>
    `sync-batch-${createHash('sha1')
      .update(items.map((item) => `${item.serviceId}:${item.fingerprint}`).join(','))
      .digest('hex')}`,
  /** One job per paid checkout. */
  syncPaid: (checkoutId: string) => `sync-paid-${checkoutId}`,
};
