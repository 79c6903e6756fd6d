import type { Queue } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;
  /** One per delivery attempt of a finish or cancel, by its shop and what came of it. */
  notificationAttempts: Counter<'shop' | 'kind' | 'result'>;
  /** A finish or cancel put back to wait, its attempt not spent: its shop's breaker was open. */
  notificationsHeld: Counter<'shop'>;
  /** From the outcome being accepted (job enqueued) to the platform's 2xx. */
  notificationLatency: Histogram<'kind'>;
  /** Checkout records the reconciler found unreadable and parked, once each (a person must mend them). */
  unreadableRecords: Counter;
  paymentIncidents: Counter<'kind'>;
}

/** What the queue gauges read of a BullMQ queue. */
export type ObservedQueue = Pick<Queue, 'name' | 'getJobCounts' | 'getJobs'>;

/** The finish/cancel deliveries' metrics, in `registers`. */
function notificationMetrics(
  registers: Registry[],
): Pick<Metrics, 'notificationAttempts' | 'notificationsHeld' | 'notificationLatency'> {
  return {
    notificationAttempts: new Counter({
      name: 'connector_notification_attempts_total',
      help: 'Delivery attempts of finish/cancel, by shop and result: delivered, transient, misconfigured, permanent, duplicate, superseded',
      labelNames: ['shop', 'kind', 'result'] as const,
      registers,
    }),
    notificationsHeld: new Counter({
      name: 'connector_notifications_held_total',
      help: "Finish/cancel put back to wait without spending an attempt, because their shop's platform keeps failing (its breaker is open)",
      labelNames: ['shop'] as const,
      registers,
    }),
    notificationLatency: new Histogram({
      name: 'connector_notification_delivery_seconds',
      help: 'From the outcome being accepted to the platform acknowledging the finish/cancel',
      labelNames: ['kind'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60, 300, 1800, 3600, 21600, 86400],
      registers,
    }),
  };
}

/**
 * A registry of the process's own (not prom-client's global one), so several apps can live in
 * one test process: default Node metrics, HTTP durations and the delivery metrics.
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests served, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    ...notificationMetrics(registers),
    paymentIncidents: new Counter({
      name: 'connector_payment_incidents_total',
      help: 'What providers said after an outcome was recorded, by kind: refund, chargeback, late_payment, med_return (never a second finish or a cancel: the shop must act; docs/payment-providers.md, "Incidents after the outcome")',
      labelNames: ['kind'] as const,
      registers,
    }),
    unreadableRecords: new Counter({
      name: 'connector_reconcile_unreadable_records_total',
      help: 'Checkout records the reconciler could not read and parked out of its line, once each (the error log names each)',
      registers,
    }),
  };
}

const COUNTED_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

/** Queue depth by state, the failed-set size, and the age of the oldest job still waiting. */
export function observeQueues(
  metrics: Metrics,
  queues: readonly ObservedQueue[],
  now: () => number = Date.now,
): void {
  new Gauge({
    name: 'connector_queue_jobs',
    help: 'Jobs per queue and state (failed is the failed set operators look at)',
    labelNames: ['queue', 'state'] as const,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const queue of queues) {
        // While Redis is away the queue gauges are left out; the rest of /metrics still answers.
        const counts = await queue.getJobCounts(...COUNTED_STATES).catch(() => undefined);
        if (!counts) continue;
        for (const state of COUNTED_STATES)
          this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'connector_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting or waiting to be retried, per queue (0 when none)',
    labelNames: ['queue'] as const,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const queue of queues) {
        const oldest = await Promise.all(
          (['wait', 'delayed'] as const).map((type) => queue.getJobs([type], 0, 0, true)),
        ).catch(() => undefined);
        if (!oldest) continue;
        const stamps = oldest.flat().flatMap((job) => (job ? [job.timestamp] : []));
        const age = stamps.length ? (now() - Math.min(...stamps)) / 1000 : 0;
        this.set({ queue: queue.name }, Math.max(0, age));
      }
    },
  });
}

/**
 * What the reconciler gauges read: checkouts due for a look, the longest-waiting one, the records
 * parked as unreadable, and the Pix watch's size and its reads due.
 */
export type ReadBacklog = () => Promise<{
  due: number;
  oldestDueAt: Date | undefined;
  unreadable: number;
  watched: number;
  watchDue: number;
}>;

/**
 * The reconciler's backlog: checkouts due for a look that no pass has reached yet, and how long
 * the most overdue one has waited. Both stay near 0 while the reconciler keeps up; a growing
 * value means lost webhooks would heal late (shorten nothing: add worker processes).
 */
export function observeReconciler(
  metrics: Metrics,
  readBacklog: ReadBacklog,
  now: () => number = Date.now,
): void {
  let last: ReturnType<ReadBacklog> | undefined;
  // The gauges are read in one scrape: one read of Redis serves them all.
  const read = (): ReturnType<ReadBacklog> =>
    (last ??= readBacklog().finally(() => (last = undefined)));
  type Backlog = Awaited<ReturnType<ReadBacklog>>;
  const gauge = (name: string, help: string, valueOf: (backlog: Backlog) => number) =>
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      async collect() {
        const backlog = await read().catch(() => undefined);
        if (backlog) this.set(valueOf(backlog));
      },
    });
  gauge(
    'connector_reconcile_due_checkouts',
    'Checkouts due for a reconciler look that no pass has reached yet',
    (backlog) => backlog.due,
  );
  gauge(
    'connector_reconcile_oldest_due_seconds',
    'How long the most overdue checkout has been due for a reconciler look (0 when none is)',
    ({ oldestDueAt }) =>
      oldestDueAt === undefined ? 0 : Math.max(0, (now() - oldestDueAt.getTime()) / 1000),
  );
  gauge(
    'connector_pix_watched_checkouts',
    'Checkouts paid by Pix the reconciler reads again until PIX_WATCH_DAYS after their payment (a MED return), every shop together',
    (backlog) => backlog.watched,
  );
  gauge(
    'connector_pix_watch_due_checkouts',
    'Paid Pix due for a watch read that no pass has reached yet: near 0 while passes keep up (each shop reads at most 50 a pass)',
    (backlog) => backlog.watchDue,
  );
  gauge(
    'connector_unreadable_checkout_records',
    "Checkout records parked as unreadable, every shop together: out of the reconciler's line until a person mends or deletes them (`connector checkout status --unreadable --shop <shop>`)",
    (backlog) => backlog.unreadable,
  );
}

/**
 * Balances of plans due and overdue per shop (a deposit paid and reported, its balance not yet),
 * read at each scrape; a series only for a shop with a balance due, so the label stays bounded.
 */
export function observeBalances(
  metrics: Metrics,
  readBalances: () => Promise<Array<{ shop: string; due: number; overdue: number }>>,
): void {
  let last: ReturnType<typeof readBalances> | undefined;
  const read = () => (last ??= readBalances().finally(() => (last = undefined)));
  const gauge = (
    name: string,
    help: string,
    valueOf: (one: { due: number; overdue: number }) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['shop'] as const,
      registers: [metrics.registry],
      async collect() {
        const shops = await read().catch(() => undefined);
        if (!shops) return;
        this.reset();
        for (const one of shops) if (one.due > 0) this.set({ shop: one.shop }, valueOf(one));
      },
    });
  gauge(
    'connector_plan_balances_due',
    'Balances of plans not paid yet, per shop: the deposit paid and reported, the balance payable on the payment page',
    (one) => one.due,
  );
  gauge(
    'connector_plan_balances_overdue',
    'Of them, those past their due day (balanceDueDays), per shop: the ERP sends the customer the page again',
    (one) => one.overdue,
  );
}

/**
 * The shops whose platform keeps failing (their breaker open: their finish/cancel wait, other
 * shops go on), read at each scrape; one series per such shop, so the label stays bounded.
 */
export function observeBreakers(metrics: Metrics, openShops: () => Promise<string[]>): void {
  new Gauge({
    name: 'connector_shop_breaker_open',
    help: '1 for each shop whose platform account keeps failing: its breaker is open, its finish/cancel wait for it',
    labelNames: ['shop'] as const,
    registers: [metrics.registry],
    async collect() {
      const shops = await openShops().catch(() => undefined);
      if (!shops) return;
      this.reset();
      for (const shop of shops) this.set({ shop }, 1);
    },
  });
}

/** Whether Redis answers a PING, read at each scrape: the alert for Redis unreachable. */
export function observeRedis(metrics: Metrics, ping: () => Promise<boolean>): void {
  new Gauge({
    name: 'connector_redis_up',
    help: 'Whether Redis answered a PING within 1 s at this scrape (1) or not (0)',
    registers: [metrics.registry],
    async collect() {
      this.set((await ping().catch(() => false)) ? 1 : 0);
    },
  });
}

/** A connected shop as its gauges see it. */
export interface ObservedConnection {
  shop: string;
  needsReconnect: boolean;
  /** Its credential's kind and expiry, when it has one. */
  credential?: { kind: string; expiresAt: string };
}

/**
 * Connected shops' credentials (CONTRACT "Credentials stay alive"), read at each scrape from
 * the shops this process serves: which must connect again, and when each credential expires.
 */
export function observeConnections(
  metrics: Metrics,
  connections: () => ObservedConnection[],
): void {
  new Gauge({
    name: 'connector_shop_needs_reconnect',
    help: '1 for a connected shop whose provider refused to renew its credential: it takes no checkout until the owner follows a new link (`connector shops connect`), else 0',
    labelNames: ['shop'] as const,
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const connection of connections())
        this.set({ shop: connection.shop }, connection.needsReconnect ? 1 : 0);
    },
  });
  new Gauge({
    name: 'connector_credential_expiry_timestamp_seconds',
    help: "When each shop's credential expires (Unix seconds), by shop and kind: a connected account's (`oauth_access_token` renews itself ahead of it) or a pasted one that expires (`client_certificate`, API Pix); other kinds than the token must be replaced",
    labelNames: ['shop', 'kind'] as const,
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const { shop, credential } of connections()) {
        if (!credential) continue;
        const at = Date.parse(credential.expiresAt);
        if (Number.isFinite(at)) this.set({ shop, kind: credential.kind }, at / 1000);
      }
    },
  });
}
