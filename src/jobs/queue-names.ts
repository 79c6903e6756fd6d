import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CHECKOUT_ID_PATTERN, INCIDENT_KINDS, shopOfCheckout } from '../checkout/checkout-record';
import { paymentRecordSchema } from '../checkout/payment-record';
import { namedShop, SHOP_ID_PATTERN, shopOrEnv } from '../shop/shop-id';
import { serviceIdSchema } from '../shop/service-id';

/**
 * Queue names; each queue's keys are under its own hash tag, `{QUEUE_PREFIX:queue:<name>}`
 * (src/redis/keyspace.ts), so several connectors share a Redis and a Cluster spreads the queues.
 * The queues are shared by every shop: each job names its shop.
 */
export const QUEUES = {
  checkout: 'checkout',
  notifications: 'notifications',
  sync: 'sync',
  /** Each shop's provider account kept working: credential renewals, webhook registration. */
  providers: 'providers',
} as const;

/** The job names of each queue; a job of any other name fails for good. */
export const JOB_NAMES = {
  checkout: ['produce', 'expire', 'reconcile'],
  notifications: ['finish', 'cancel'],
  sync: ['pass', 'deliver', 'deliver-batch', 'payment', 'incident'],
} as const;

const checkoutId = z.string().regex(CHECKOUT_ID_PATTERN, 'not a checkout id');
const shopId = z.string().regex(SHOP_ID_PATTERN, 'not a shop id');
/** Jobs queued before many shops carry no shop: they are the env shop's. */
const shop = shopId.optional().transform(shopOrEnv);
/**
 * Which shop of that id queued the job (src/shop-registry/stored-shop.ts `incarnation`): absent for
 * the env shop, for shops stored before incarnations, and in jobs queued before them. A job whose
 * shop is no longer that incarnation (removed, or removed and added again) is dropped.
 */
const incarnation = z
  .string()
  .regex(/^[0-9a-f]{1,32}$/, 'not an incarnation')
  .optional();

/** A checkout's job must name the shop its checkout id names: no job acts in another shop. */
function sameShop(data: { shop: string; checkoutId: string }): boolean {
  return shopOfCheckout(data.checkoutId) === data.shop;
}
const SHOP_MISMATCH = { message: 'names a shop its checkout id does not', path: ['shop'] };

export const produceJobSchema = z
  .object({
    shop,
    incarnation,
    checkoutId,
    jobKey: z.string(),
    requestId: z.string().optional(),
  })
  .refine(sameShop, SHOP_MISMATCH);
export const expireJobSchema = z
  .object({ shop, incarnation, checkoutId, requestId: z.string().optional() })
  .refine(sameShop, SHOP_MISMATCH);
/** The reconciler: one pass over every shop's line. */
export const reconcileJobSchema = z.object({ requestId: z.string().optional() });
export const notificationJobSchema = z
  .object({
    shop,
    incarnation,
    checkoutId,
    kind: z.enum(['finish', 'cancel']),
    requestId: z.string().optional(),
  })
  .refine(sameShop, SHOP_MISMATCH);

/** A sync pass: of one shop, or (from the schedule, with no shop) one pass job per shop. */
export const syncPassJobSchema = z.object({
  shop: shopId.optional(),
  incarnation,
  requestId: z.string().optional(),
});
export const syncDeliverJobSchema = z.object({
  shop,
  incarnation,
  serviceId: serviceIdSchema,
  /** The version a pass saw; the delivery reads the service again and sends what it finds. */
  fingerprint: z.string().optional(),
  /** Why: a pass saw it new or changed, or a checkout of it was paid. */
  cause: z.enum(['pass', 'paid']).default('pass'),
  requestId: z.string().optional(),
});

export const syncBatchJobSchema = z.object({
  shop,
  incarnation,
  items: z
    .array(z.object({ serviceId: serviceIdSchema, fingerprint: z.string() }))
    .min(1)
    .max(1000),
  requestId: z.string().optional(),
});

/** A payment record's delivery to the ERP (the sync's sink). */
export const syncPaymentJobSchema = z
  .object({ shop, incarnation, record: paymentRecordSchema, requestId: z.string().optional() })
  .refine((data) => data.record.shop === data.shop, {
    message: 'names a shop its record does not',
    path: ['shop'],
  });

/**
 * An incident after a checkout's outcome, as the previous release queued it for the ERP: now
 * delivered as a payment record (src/jobs/sync-workers.ts).
 */
export const syncIncidentJobSchema = z.object({
  shop,
  incarnation,
  incident: z.object({
    event: z.literal('payment_incident'),
    kind: z.enum(INCIDENT_KINDS),
    checkout_id: checkoutId,
    service_id: serviceIdSchema,
    provider: z.string(),
    outcome: z.string(),
    transaction_id: z.string().optional(),
    note: z.string().optional(),
    amount: z.object({ amount_minor: z.number().int(), currency: z.string() }).optional(),
    at: z.string(),
  }),
  requestId: z.string().optional(),
});

export type SyncIncidentJob = z.input<typeof syncIncidentJobSchema>;
export type SyncPaymentJob = z.input<typeof syncPaymentJobSchema>;
export type SyncDeliverJob = z.input<typeof syncDeliverJobSchema>;
export type SyncBatchJob = z.input<typeof syncBatchJobSchema>;
export type SyncPassJob = z.input<typeof syncPassJobSchema>;
export type ProduceJob = z.infer<typeof produceJobSchema>;
export type ExpireJob = z.infer<typeof expireJobSchema>;
export type NotificationJob = z.infer<typeof notificationJobSchema>;

/**
 * The env shop's ids are as before many shops (so a job queued then is found again); another
 * shop's name its scope (its id and incarnation), so a shop added again under a removed one's id
 * never finds its predecessor's job in the way of its own.
 */
const ofShop = (scope: string): string => {
  const named = namedShop(scope);
  return named ? `${named}-` : '';
};

/**
 * BullMQ job ids: ':' is reserved (BullMQ rejects it), and one id per piece of work makes a
 * second add of the same work a no-op.
 */
export const jobIds = {
  produce: (jobKey: string) => `produce-${jobKey.replace(/:/g, '-')}`,
  expire: (checkoutId: string, at: Date) => `expire-${checkoutId}-${at.getTime()}`,
  notify: (kind: 'finish' | 'cancel', checkoutId: string) => `${kind}-${checkoutId}`,
  /** One delivery per payment record (`pay_` and hex: no ':' in it). */
  syncPayment: (recordId: string) => `payment-${recordId}`,
  /** One delivery per incident (kind and provider payment) of a checkout (the previous release's). */
  syncIncident: (checkoutId: string, kind: string, transactionId: string | undefined) =>
    `incident-${checkoutId}-${kind}-${(transactionId ?? 'none').replace(/[^A-Za-z0-9_-]/g, '_')}`,
  /** One job per version of a shop's service: a pass that sees it again adds nothing. */
  syncDeliver: (scope: string, serviceId: number, fingerprint: string) =>
    `sync-${ofShop(scope)}${serviceId}-${fingerprint}`,
  /** One job per set of service versions: a pass that finds the same page again adds nothing. */
  syncBatch: (scope: string, items: ReadonlyArray<{ serviceId: number; fingerprint: string }>) =>
    `sync-batch-${ofShop(scope)}${createHash('sha1')
      .update(items.map((item) => `${item.serviceId}:${item.fingerprint}`).join(','))
      .digest('hex')}`,
  /** One job per paid checkout (its id names its shop). */
  syncPaid: (checkoutId: string) => `sync-paid-${checkoutId}`,
  /** A shop's part of one scheduled pass. */
  syncPass: (scope: string, scheduledAt: number) => `sync-pass-${scope}-${scheduledAt}`,
};
