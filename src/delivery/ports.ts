/** A finish or cancel delivery that gave up, as operators see it (never a secret). */
export interface FailedDelivery {
  id: string;
  /** The shop the delivery is of (from its job; undefined only for a job that names none). */
  shop: string | undefined;
  kind: string;
  serviceId: number | undefined;
  checkoutId: string | undefined;
  attempts: number;
  failedAt: string | undefined;
  reason: string;
}

/** The failed set of finish/cancel deliveries: what the dashboard and the CLI act on. */
export interface FailedDeliveries {
  /** One page of the failed set, most recent first. */
  page(offset: number, limit: number): Promise<FailedDelivery[]>;
  /**
   * Every delivery that failed for good from `since` to before `until`, oldest first: read by
   * when they failed (the failed set's own order), so failures arriving meanwhile shift nothing.
   */
  failedBetween(since: Date, until: Date): Promise<FailedDelivery[]>;
  /**
   * Sends one failed delivery again from its first attempt; false when no such failed delivery
   * (of `shop`, when given).
   */
  retry(id: string, shop?: string): Promise<boolean>;
  /** Sends every failed delivery (of `shop`, when given) again; returns how many there were. */
  retryAll(shop?: string): Promise<number>;
}

/** Where a checkout's finish or cancel delivery stands, as the queue knows it. */
export interface DeliveryProgress {
  kind: 'finish' | 'cancel';
  /** The queue's word: waiting, delayed (a retry is scheduled), active, completed, failed. */
  state: string;
  attempts: number;
  /** The last attempt's error, when one failed (secret-free: the delivery's own message). */
  lastError: string | undefined;
  /** When the job ended (delivered, or gave up). */
  finishedAt: string | undefined;
  /** When the next attempt is due, while a retry waits. */
  nextAttemptAt: string | undefined;
}

/** A payment record's delivery to the ERP (its `payment-<record id>` job), for the evidence. */
export interface RecordDelivery extends Omit<DeliveryProgress, 'kind'> {
  recordId: string;
}

/** The deliveries of a checkout, for its story. */
export interface DeliveryHistory {
  ofCheckout(checkoutId: string): Promise<DeliveryProgress[]>;
  /**
   * The ERP's deliveries of these payment records, those whose job is still kept (7 days once
   * delivered, like the others; the failed set until retried).
   */
  ofRecords(recordIds: readonly string[]): Promise<RecordDelivery[]>;
}

/** Where a shop's breaker stands, as the store answers a job about to call the shop's platform. */
export type BreakerAdmission =
  /** No failure recorded. */
  | { kind: 'closed' }
  /** Failures recorded, fewer than open the breaker. */
  | { kind: 'counting' }
  /** Open, its cool-down over: this caller is the one probe let through. */
  | { kind: 'probe' }
  /** Open (or a probe is out): wait until then. */
  | { kind: 'open'; until: number };

/** What one more failure did to a shop's breaker. */
export type BreakerFailure =
  | { kind: 'counting' }
  /**
   * Open until then. `opens`: how many times it has opened since it last closed, when this
   * failure opened it (1) or, a probe's, reopened it (2, 3...); 0 when it was open already.
   */
  | { kind: 'open'; until: number; opens: number; cooldownMs: number };

/** The rules of the breaker, passed to the store with each failure. */
export interface BreakerRules {
  /** Failures in a row (none further apart than `windowMs`) that open the breaker. */
  threshold: number;
  /** The first cool-down; each failed probe doubles it, up to `maxCooldownMs`. */
  cooldownMs: number;
  maxCooldownMs: number;
  windowMs: number;
  /** How long the probe let through has before another may go. */
  probeMs: number;
}

/**
 * Every shop's circuit breaker, shared by every worker process: one record per shop, each
 * operation one atomic step on it.
 */
export interface BreakerStore {
  admit(shop: string, nowMs: number, rules: BreakerRules): Promise<BreakerAdmission>;
  failed(shop: string, nowMs: number, rules: BreakerRules, probe: boolean): Promise<BreakerFailure>;
  /** The shop's platform answered: the breaker closes. True when it was open. */
  answered(shop: string): Promise<boolean>;
  /** Where the shop's breaker stands, changing nothing. */
  stateOf(shop: string): Promise<'closed' | 'counting' | 'open'>;
}

/**
 * What only the job runtime can do for a delivery: hold the job until a moment without spending
 * one of its attempts (its shop's platform keeps failing; the job made no call worth counting).
 */
export interface JobControl {
  /**
   * Puts the job back to wait until `untilMs` and ends this run: it never returns. `otherwise` is
   * thrown, as a plain failed attempt, when the job cannot be held.
   */
  holdUntil(untilMs: number, otherwise: unknown): Promise<never>;
}

/** The delivery counters the use cases keep; the process's metrics fit them. */
export interface DeliveryMeters {
  /** Every attempt, by what came of it. */
  notificationAttempts: { inc(labels: { shop: string; kind: string; result: string }): void };
  /** Deliveries held without an attempt while their shop's breaker is open. */
  notificationsHeld: { inc(labels: { shop: string }): void };
  /** Seconds from queuing to delivery, of each delivered notification. */
  notificationLatency: { observe(labels: { kind: string }, seconds: number): void };
}
