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
