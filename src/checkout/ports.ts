import type {
  ChargeLine,
  CheckoutRecord,
  CheckoutState,
  Money,
  NotificationKind,
  PaidWith,
  IncidentKind,
  PaymentIncident,
  PlanPartName,
  Settlement,
  StoredPlan,
  UnreadableRecord,
} from './checkout-record';
import type { PaymentRecord } from './payment-record';

/** What is recorded with a move; a field left undefined keeps what the record holds. */
export interface OutcomeFields {
  transactionId?: string;
  reason?: string;
  /** What the provider collected (paid), in the checkout's currency. */
  collectedMinor?: number;
  /** Of it, the buyer's installment interest as the provider reports it. */
  interestMinor?: number;
  method?: PaidWith;
  settlement?: Settlement;
}

export type OpenResult =
  | { kind: 'created'; record: CheckoutRecord }
  | { kind: 'open'; record: CheckoutRecord; requestNumber: number }
  | { kind: 'already_paid'; record: CheckoutRecord };

/** A checkout the reconciler parked because its record cannot be read. */
export interface ParkedUnreadable {
  checkoutId: string;
  parkedAt: Date;
  /** What is wrong with the record now (as `UnreadableRecord`); undefined once mended. */
  problem: string | undefined;
}

/** What a checkout keeps of the provider's checkout; `provider` is the checkout's own. */
export interface ProviderCheckoutAttach {
  provider: string;
  providerRef: string;
  url: string;
  amount: Money;
  lines: ChargeLine[];
  vendorFee?: Money;
}

/** What a planned checkout keeps of its page: its URL, the order's price and its plan. */
export interface PlanAttach {
  /** A later expiry (a plan finishing on the whole lives until its balance is due). */
  expiresAt?: Date;
  url: string;
  amount: Money;
  lines: ChargeLine[];
  plan: StoredPlan;
  vendorFee?: Money;
}

/** A part checkout asked for (plan-checkout.ts `startPart`). */
export interface PartInput {
  parentId: string;
  checkoutId: string;
  /** The choice's slot: the same slot while its checkout is open is that checkout. */
  slot: string;
  part: PlanPartName;
  split?: 1 | 2;
  /** How many parts its plan has, and the order's total (its payment record says them). */
  planParts: number;
  orderMinor: number;
  provider: string;
  now: Date;
  expiresAt: Date;
  lookAt: Date;
}

/** `full`: the plan has as many part checkouts as it may (MAX_PART_CHECKOUTS). */
export type OpenPartResult =
  | { kind: 'created'; record: CheckoutRecord }
  | { kind: 'open'; record: CheckoutRecord }
  | { kind: 'closed' }
  | { kind: 'full' }
  | { kind: 'gone' };

/** The most part checkouts one plan may have: a stranger posting choices cannot grow it more. */
export const MAX_PART_CHECKOUTS = 20;

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
    lookAt: Date;
    /** The opening request's W3C traceparent, kept with a new checkout. */
    trace?: string;
  }): Promise<OpenResult>;
  /** The record; undefined when there is none; throws when it is unreadable. */
  get(checkoutId: string): Promise<CheckoutRecord | undefined>;
  /** Several records in one round trip, in order; an `UnreadableRecord` where one cannot be read. */
  getMany(
    checkoutIds: readonly string[],
  ): Promise<Array<CheckoutRecord | UnreadableRecord | undefined>>;
  findByProviderRef(provider: string, providerRef: string): Promise<CheckoutRecord | undefined>;
  /** Stores what the provider created, once; returns the record as it stands after. */
  attachProviderCheckout(
    checkoutId: string,
    attach: ProviderCheckoutAttach,
    now: Date,
    lookAt: Date,
  ): Promise<CheckoutRecord>;
  /**
   * Moves to `to` when the current state allows it; returns whether it moved and the state after.
   * `reported` (the platform acknowledged the notification) takes the checkout out of line.
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
   * Records another method for an open checkout (a boleto under way, then a Pix); one with its
   * outcome recorded keeps its method. Returns whether it wrote.
   */
  updateMethod(checkoutId: string, method: PaidWith, now: Date): Promise<boolean>;
  /** Notes that the paid outcome's payment record is queued: a later hint queues no second. */
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
  /** Stores a planned checkout's page, once; returns the record as it stands after. */
  attachPlan(
    checkoutId: string,
    attach: PlanAttach,
    now: Date,
    lookAt: Date,
  ): Promise<CheckoutRecord>;
  /** A part checkout for a choice: the open one of the same slot, or a new one linked to its plan. */
  openPart(input: PartInput): Promise<OpenPartResult>;
  /**
   * Keeps these checkouts' records (and their provider indexes) at least `forMs` from now and the
   * retention after it: a plan's balance is payable, and its paid parts counted, until then.
   */
  keepUntil(
    records: ReadonlyArray<Pick<CheckoutRecord, 'checkoutId' | 'provider' | 'providerRef'>>,
    forMs: number,
  ): Promise<void>;
  /**
   * Marks a planned checkout closing: its expiry gives back what was paid before the cancel, and
   * meanwhile no part opens (OPEN_PART) and no finish is recorded (`advancePlan`).
   */
  markClosing(checkoutId: string, now: Date): Promise<void>;
  /** Takes the right to give a checkout's payment back, for a while; false: another has it. */
  claimRefund(checkoutId: string): Promise<boolean>;
  releaseRefund(checkoutId: string): Promise<void>;
  latestForService(serviceId: number): Promise<CheckoutRecord | undefined>;
  /** Every checkout of the service still kept, newest first (an unreadable one first). */
  checkoutsOfService(serviceId: number): Promise<Array<CheckoutRecord | UnreadableRecord>>;
}

/**
 * The reconciler's line: the checkouts not yet reported, by when each is next due for a look,
 * and the sets of those taken out of it. The records' writes put a checkout in line.
 */
export interface ReconcileBacklog {
  due: number;
  oldestDueAt: Date | undefined;
  unreadable: number;
  watched: number;
  watchDue: number;
}

export interface ReconcileLine {
  /** Ids of the checkouts in line due for a look by `now`, the most overdue first. */
  dueCheckouts(now: Date, limit: number): Promise<string[]>;
  /** Sets when each checkout is next due for a look (one not in line stays out). */
  scheduleLooks(looks: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void>;
  /**
   * How many are due by `now`, since when the most overdue one is, how many are unreadable; and
   * of the Pix watch, how many it holds and how many are due for a read by `now`.
   */
  reconcileBacklog(now: Date): Promise<ReconcileBacklog>;
  /** Takes a checkout whose notification failed for good out of line (the failed set owns it). */
  parkFailedDelivery(checkoutId: string, now: Date): Promise<void>;
  /** Takes a checkout whose record cannot be read out of line, into the shop's unreadable set. */
  parkUnreadable(checkoutId: string, now: Date): Promise<void>;
  /** The checkouts parked as unreadable, oldest first. */
  unreadableCheckouts(limit: number): Promise<ParkedUnreadable[]>;
  /** Whether a checkout is in line: something is left to do for it. */
  inLine(checkoutId: string): Promise<boolean>;
  /** Takes a checkout off the reconciler's line (nothing left to do for it), with a note. */
  retire(checkoutId: string, note?: { field: 'cancelDropped'; value: string }): Promise<void>;
  /** Ids of the paid Pix in the watch due for a read by `now`, the most overdue first. */
  dueWatches(now: Date, limit: number): Promise<string[]>;
  /** Sets when each watched Pix is next read (one no longer watched stays out). */
  scheduleWatches(reads: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void>;
  /** Takes checkouts out of the watch. */
  endWatches(checkoutIds: readonly string[]): Promise<void>;
  /** How many Pix the watch holds. */
  watchSize(): Promise<number>;
  /**
   * Notes that a planned checkout has a balance due by `dueAt` (its deposit paid and reported),
   * or, `dueAt` undefined, none any more.
   */
  noteBalance(checkoutId: string, dueAt: Date | undefined): Promise<void>;
  /** How many of the shop's balances are due, and how many of them are overdue at `now`. */
  balances(now: Date): Promise<{ due: number; overdue: number }>;
}

/** The provider webhook events already handled: a duplicate changes nothing. */
export interface WebhookEvents {
  /** Whether a provider's webhook event was handled already (remembered 7 days). */
  handled(provider: string, eventId: string): Promise<boolean>;
  markHandled(provider: string, eventId: string): Promise<void>;
}

/**
 * A finish or cancel to deliver. What it says is read from the checkout's record when
 * delivering, so no job can tell the platform more than the record holds.
 */
export interface Notification {
  checkoutId: string;
  kind: NotificationKind;
}

export interface CheckoutJobs {
  /** Creates the provider checkout (once) and posts its URL to the platform. */
  produce(checkoutId: string, jobKey: string): Promise<void>;
  scheduleExpiry(checkoutId: string, at: Date): Promise<void>;
  /** Several in one round trip. */
  scheduleExpiries(expiries: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void>;
  /** Delivers a finish or cancel, at least once; enqueuing the same one twice is a no-op. */
  notify(notification: Notification): Promise<void>;
}

export type Clock = () => Date;

/** What the ERP sync offers the checkout flow: a paid service reaches the ERP at once. */
export interface PaidServiceSync {
  /** Resolves once the service is queued (once per checkout). */
  servicePaid(serviceId: number, checkoutId: string): Promise<void>;
}

/** Where a use case wrote, for `Replication.held`: the shop's own data, or one of the queues. */
export type WrittenTo = 'shop-data' | 'checkout-queue' | 'notification-queue' | 'sync-queue';

/**
 * `held(...)` resolves once a replica holds every write made so far to the places named, and
 * fails, to be retried, when none confirms in time: nothing leaves the connector resting on a
 * write a failover could take back. Naming the places keeps a primary that is down, and took
 * none of the caller's writes, from failing it.
 */
export interface Replication {
  held(first: WrittenTo, ...more: WrittenTo[]): Promise<void>;
}

/** A checkout keeps the trace of the request that opened it; what settles it runs in it. */
export interface CheckoutTracing {
  /** The active W3C traceparent; none while off. */
  current(): string | undefined;
  /** Runs `fn` in a span of the checkout's kept `trace`, linked to the active one. */
  within<T>(
    trace: string | undefined,
    name: string,
    attributes: Record<string, string | number>,
    fn: () => Promise<T>,
  ): Promise<T>;
}

/** The ERP's payment records, when a sink is configured: queued once per `record_id`. */
export interface PaymentRecords {
  queue(record: PaymentRecord): Promise<void>;
}

/** What is done with a new incident besides recording it and telling the ERP. */
export interface IncidentFollowUp {
  /** `connector_payment_incidents_total{kind}`. */
  count(kind: IncidentKind): void;
}
