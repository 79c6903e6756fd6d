import type {
  ChargeLine,
  CheckoutRecord,
  CheckoutState,
  Money,
  NotificationKind,
  PaidWith,
  IncidentKind,
  PaymentIncident,
  Settlement,
  UnreadableRecord,
} from './checkout-record';
import type { PaymentRecord } from './payment-record';

/**
 * What is recorded with a move: the provider's payment, why, what it collected, how it was paid.
 * A field left undefined keeps what the record holds.
 */
export interface OutcomeFields {
  transactionId?: string;
  reason?: string;
  /** What the provider collected (paid), in the checkout's currency. */
  collectedMinor?: number;
  /** Of it, what the provider reports as the buyer's installment interest. */
  interestMinor?: number;
  /** How the customer paid, when the provider said. */
  method?: PaidWith;
  /** The paid outcome's money as the provider reported it (kept as JSON). */
  settlement?: Settlement;
}

/** The result of asking for a checkout for a service. */
export type OpenResult =
  | { kind: 'created'; record: CheckoutRecord }
  | { kind: 'open'; record: CheckoutRecord; requestNumber: number }
  | { kind: 'already_paid'; record: CheckoutRecord };

/** A checkout the reconciler parked because its record cannot be read. */
export interface ParkedUnreadable {
  checkoutId: string;
  parkedAt: Date;
  /** What is wrong with the record now (the field and why, as `UnreadableRecord`); undefined once mended. */
  problem: string | undefined;
}

/** What a checkout keeps of the provider's checkout; `provider` is the checkout's own. */
export interface ProviderCheckoutAttach {
  provider: string;
  providerRef: string;
  url: string;
  amount: Money;
  lines: ChargeLine[];
  /** The vendor's fee asked of the provider, for a connected shop that pays one. */
  vendorFee?: Money;
}

/**
 * Where checkout records live. Every method is atomic. A write that changes a checkout also sets
 * when the reconciler is next due to look at it, in the same step: `lookAt`, which the caller
 * takes from the reconcile schedule (src/checkout/reconcile-schedule.ts).
 */
export interface CheckoutRecords {
  /** Creates a checkout unless the service has an open one (returned instead) or a paid one. */
  openForService(input: {
    checkoutId: string;
    serviceId: number;
    provider: string;
    now: Date;
    expiresAt: Date;
    /** When the reconciler is first due to look at a checkout created now. */
    lookAt: Date;
    /** The trace of the request that opens it (a W3C traceparent), kept with a new checkout. */
    trace?: string;
  }): Promise<OpenResult>;
  /** The record; undefined when there is none; throws when it is unreadable. */
  get(checkoutId: string): Promise<CheckoutRecord | undefined>;
  /**
   * Several records in one round trip, in the order asked; undefined where there is none, an
   * `UnreadableRecord` where one cannot be read (the others are still read).
   */
  getMany(
    checkoutIds: readonly string[],
  ): Promise<Array<CheckoutRecord | UnreadableRecord | undefined>>;
  findByProviderRef(provider: string, providerRef: string): Promise<CheckoutRecord | undefined>;
  /**
   * Stores what the provider created, once; returns the record as it stands after. `provider`
   * is the checkout's (the caller has read the record). When it stores, the checkout is next due
   * for a look at `lookAt` (if it is in the reconciler's line).
   */
  attachProviderCheckout(
    checkoutId: string,
    attach: ProviderCheckoutAttach,
    now: Date,
    lookAt: Date,
  ): Promise<CheckoutRecord>;
  /**
   * Moves to `to` when the current state allows it. Returns whether it moved and the
   * state as it stands after. `reported` is the one record that the platform acknowledged the
   * outcome's notification: it takes the checkout out of the reconciler's line; any other move
   * makes it due for a look at `lookAt` (if it is in the line).
   */
  transition(
    checkoutId: string,
    to: CheckoutState,
    fields: OutcomeFields,
    now: Date,
    lookAt: Date,
    /** An outcome's: the provider's checkout, whose index is then kept as long as the record. */
    providerCheckout?: { provider: string; providerRef?: string },
  ): Promise<{ moved: boolean; state: CheckoutState | undefined }>;
  /**
   * Records how an open checkout is being paid, when a status that moves it nowhere says another
   * method than the record's (a boleto under way, then a Pix under way). A checkout with its
   * outcome recorded is left as it is (its outcome's method stays). Returns whether it wrote.
   */
  updateMethod(checkoutId: string, method: PaidWith, now: Date): Promise<boolean>;
  /**
   * Notes that the paid outcome's payment record is queued for the ERP (`paidRecordQueued`), so
   * that a later hint queues no second one, the record's job gone or not.
   */
  markPaidRecordQueued(checkoutId: string): Promise<void>;
  /**
   * Records an incident on the checkout, once per kind and provider payment: 'added', 'known'
   * (recorded before), or 'gone' (no record: it outlived its retention).
   */
  addIncident(
    checkoutId: string,
    incident: PaymentIncident,
    /** The provider's checkout, whose index is kept as long as the record. */
    providerCheckout?: { provider: string; providerRef?: string },
  ): Promise<'added' | 'known' | 'gone'>;
  /** The service's latest checkout. */
  latestForService(serviceId: number): Promise<CheckoutRecord | undefined>;
  /**
   * Every checkout of the service still kept (30 days after its outcome), newest first; a record
   * that cannot be read is among them, as an `UnreadableRecord`, first.
   */
  checkoutsOfService(serviceId: number): Promise<Array<CheckoutRecord | UnreadableRecord>>;
}

/**
 * The reconciler's line: the checkouts not yet reported, by when each is next due for a look,
 * and the sets of those taken out of it. The records' writes put a checkout in line
 * (`CheckoutRecords`); this is what the reconciler, delivery and the CLI do with the line.
 */
export interface ReconcileLine {
  /**
   * Ids of checkouts not yet reported that are due for a look by `now`, the most overdue
   * first; checkouts whose delivery failed for good are not among them.
   */
  dueCheckouts(now: Date, limit: number): Promise<string[]>;
  /** Sets when each checkout is next due for a look (one not in line stays out). */
  scheduleLooks(looks: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void>;
  /** How many checkouts are due by `now`, since when the most overdue one is, and how many are parked as unreadable. */
  reconcileBacklog(
    now: Date,
  ): Promise<{ due: number; oldestDueAt: Date | undefined; unreadable: number }>;
  /**
   * Takes a checkout whose notification failed for good out of the reconciler's line: the failed
   * set and the dashboard own it now; a retry that delivers it reports it as usual.
   */
  parkFailedDelivery(checkoutId: string, now: Date): Promise<void>;
  /**
   * Takes a checkout whose record cannot be read out of the reconciler's line, into the shop's
   * set of unreadable records: looked at once, reported once, then left to a person.
   */
  parkUnreadable(checkoutId: string, now: Date): Promise<void>;
  /** The checkouts parked as unreadable, oldest first (at most `limit`), with what is wrong. */
  unreadableCheckouts(limit: number): Promise<ParkedUnreadable[]>;
  /**
   * Whether a checkout is in the reconciler's line: something is left to do for it. One whose
   * outcome the platform acknowledged, that was retired or whose delivery was parked is not.
   */
  inLine(checkoutId: string): Promise<boolean>;
  /** Takes a checkout off the reconciler's line (nothing left to do for it), with a note. */
  retire(checkoutId: string, note?: { field: 'cancelDropped'; value: string }): Promise<void>;
}

/** The provider webhook events already handled: a duplicate changes nothing. */
export interface WebhookEvents {
  /** Whether a provider's webhook event was handled already (remembered 7 days). */
  handled(provider: string, eventId: string): Promise<boolean>;
  /** Remembers that a provider's webhook event was handled, so a duplicate changes nothing. */
  markHandled(provider: string, eventId: string): Promise<void>;
}

/**
 * A finish or cancel to deliver to the platform: which checkout, and which notification. What
 * it says (service, transaction, reason) is read from the checkout's record when delivering, so
 * no job can tell the platform more than the record holds.
 */
export interface Notification {
  checkoutId: string;
  kind: NotificationKind;
}

/** The queues the use cases hand work to. */
export interface CheckoutJobs {
  /** Creates the provider checkout (once) and posts its URL to the platform. */
  produce(checkoutId: string, jobKey: string): Promise<void>;
  /** Checks the checkout once it is due to expire. */
  scheduleExpiry(checkoutId: string, at: Date): Promise<void>;
  /** The same for several checkouts, in one round trip. */
  scheduleExpiries(expiries: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void>;
  /** Delivers a finish or cancel, at least once; enqueuing the same one twice is a no-op. */
  notify(notification: Notification): Promise<void>;
}

export type Clock = () => Date;

/** What the ERP sync offers the checkout flow: a paid service reaches the ERP at once. */
export interface PaidServiceSync {
  /** Hands the service to the sync (once per checkout); resolves when it is queued. */
  servicePaid(serviceId: number, checkoutId: string): Promise<void>;
}

/**
 * Where a use case wrote, for `Replication.held`: the shop's own data (its checkouts, sandbox
 * payments, incidents), or one of the queues (the checkout jobs, the finish/cancel deliveries,
 * the ERP sync).
 */
export type WrittenTo = 'shop-data' | 'checkout-queue' | 'notification-queue' | 'sync-queue';

/**
 * Replication as the use cases need it: `held(...)` resolves once a replica holds every write
 * made so far to the places named (at once where their primary has none), and fails, to be
 * retried, when none confirms in time. Nothing leaves the connector resting on a write a
 * failover could take back. Naming the places keeps a primary that is down, and that took none
 * of the caller's writes, from failing it.
 */
export interface Replication {
  held(first: WrittenTo, ...more: WrittenTo[]): Promise<void>;
}

/**
 * Tracing as the use cases need it (src/infra/tracing.ts): a checkout keeps the trace of the
 * request that opened it, and what settles it later runs in that trace.
 */
export interface CheckoutTracing {
  /** The active trace (a W3C traceparent), to keep with a new checkout; none while off. */
  current(): string | undefined;
  /**
   * Runs `fn` in a span `name` of the checkout's trace (its kept `trace`), linked to the active
   * one; as it is while tracing is off.
   */
  within<T>(
    trace: string | undefined,
    name: string,
    attributes: Record<string, string | number>,
    fn: () => Promise<T>,
  ): Promise<T>;
}

/**
 * The ERP's payment records (src/checkout/payment-record.ts), when a sink is configured: each
 * queued for delivery once per `record_id`, a second call for the same one adding nothing while
 * its job is kept.
 */
export interface PaymentRecords {
  queue(record: PaymentRecord): Promise<void>;
}

/** What is done with a new incident besides recording it and telling the ERP. */
export interface IncidentFollowUp {
  /** Counts a new incident (`connector_payment_incidents_total{kind}`). */
  count(kind: IncidentKind): void;
}
