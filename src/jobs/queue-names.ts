import { z } from 'zod';
import { CHECKOUT_ID_PATTERN } from '../checkout/checkout-record';

/** Queue names; the Redis prefix (QUEUE_PREFIX) keeps several connectors apart. */
export const QUEUES = { checkout: 'checkout', notifications: 'notifications' } as const;

/** The job names of each queue; a job of any other name fails for good. */
export const JOB_NAMES = {
  checkout: ['produce', 'expire', 'reconcile'],
  notifications: ['finish', 'cancel'],
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
};
