/** A finish or cancel delivery that gave up, as operators see it (never a secret). */
export interface FailedDelivery {
  id: string;
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
  /** Sends one failed delivery again from its first attempt; false when no such failed delivery. */
  retry(id: string): Promise<boolean>;
  /** Sends every failed delivery again; returns how many there were. */
  retryAll(): Promise<number>;
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

/** The deliveries of a checkout, for its story. */
export interface DeliveryHistory {
  ofCheckout(checkoutId: string): Promise<DeliveryProgress[]>;
}
