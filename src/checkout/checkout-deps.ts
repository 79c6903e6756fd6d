import type { Log } from '../log';
import type { PaymentOptions } from '../payments/payment-offer';
import type { PlanDocument } from '../payments/payment-plan';
import type { PaymentProvider } from '../payments/payment-provider';
import type { VendorFee } from '../payments/vendor-fee';
import type { PlatformClient } from '../platform/platform-client';
import type { AmountSource } from './amount-source';
import type {
  CheckoutJobs,
  CheckoutRecords,
  Clock,
  IncidentFollowUp,
  PaidServiceSync,
  PaymentRecords,
  CheckoutTracing,
  ReconcileLine,
  Replication,
  WebhookEvents,
} from './ports';
import type { ReconcileSchedule } from './reconcile-schedule';

export type CheckoutPlatform = Pick<
  PlatformClient,
  'getService' | 'postCheckoutUrl' | 'finishCheckout' | 'cancelCheckout'
>;

/** Everything the checkout use cases work with, given by the composition root. */
export interface CheckoutDeps {
  /** The shop these collaborators serve: the store, the platform account and the provider are its. */
  shop: string;
  store: CheckoutRecords;
  /** The reconciler's line of the shop's checkouts: what is due, parked, retired. */
  line: ReconcileLine;
  webhookEvents: WebhookEvents;
  /** The reconciler's timing: when a changed checkout is first looked at, and by when. */
  schedule: ReconcileSchedule;
  jobs: CheckoutJobs;
  platform: CheckoutPlatform;
  provider: PaymentProvider;
  amountSource: AmountSource;
  /** What the shop's customers may pay with (its `payment`, within its provider's offer). */
  offered?: PaymentOptions;
  /** Its plan, when its customers pay on the connector's page (payment-plan.ts `planNeedsPage`). */
  plan?: PlanDocument;
  /** The vendor's fee on each payment: a connected shop's (`feeOn`); absent for the rest. */
  vendorFee?: VendorFee;
  currency: string;
  publicUrl: string;
  /** How long a checkout stays payable. */
  expiryMs: number;
  clock: Clock;
  newCheckoutId: () => string;
  log: Log;
  /**
   * Waits for a replica to hold what was written (docs/redis.md, "Redis"): before a checkout's URL goes
   * to the platform, and before a webhook or the sandbox's Pay is answered.
   */
  replication: Replication;
  /** The ERP sync, when one is configured: told of each paid service once its finish is delivered. */
  paidSync?: PaidServiceSync;
  /** Counts each new incident after an outcome (src/checkout/payment-incidents.ts). */
  incidents?: IncidentFollowUp;
  /** The ERP's payment records, when a sink is configured: paid, and each incident after. */
  paymentRecords?: PaymentRecords;
  /** OpenTelemetry, when it is on: one trace per checkout. */
  tracing?: CheckoutTracing;
}

/**
 * Runs `fn` in the checkout's trace (src/tracing/tracing.ts), in a span `name` that names the
 * checkout; as it is without tracing.
 */
export function inCheckoutTrace<T>(
  deps: Pick<CheckoutDeps, 'tracing' | 'shop'>,
  record: { checkoutId: string; serviceId: number; trace?: string },
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  if (!deps.tracing) return fn();
  return deps.tracing.within(
    record.trace,
    name,
    {
      'connector.checkout_id': record.checkoutId,
      'connector.service_id': record.serviceId,
      'connector.shop': deps.shop,
    },
    fn,
  );
}
