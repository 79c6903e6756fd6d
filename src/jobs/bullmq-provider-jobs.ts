import { randomUUID } from 'node:crypto';
import { QueueEvents, type ConnectionOptions, type Queue } from 'bullmq';
import { z } from 'zod';
import { AppError, ERROR_CATALOGUE, errorMessage, type ErrorCode } from '../errors';
import { connectionErrorLogger, type Logger } from '../infra/logger';
import { closeRedis, type RedisCommands } from '../redis/redis';
import { queuePrefix } from '../redis/keyspace';
import { SHOP_ID_PATTERN } from '../shop/shop-id';
import { currentLogContext } from '../tracing/log-context';
import { connectorQueue, RETENTION, SCHEDULED_RETENTION } from './bullmq-checkout-jobs';
import { QUEUES } from './queue-names';

/** How often the renewal pass looks for connected credentials due for renewal. */
export const RENEWAL_CHECK_MS = 15 * 60_000;
/** How often the webhook pass looks for shops whose webhook its worker has not registered yet. */
export const WEBHOOK_CHECK_MS = 60_000;
/** How long a caller waits for a renewal's job: longer than the provider's call may take. */
export const RENEW_WAIT_MS = 60_000;

/** One shop's renewal: why, and the fingerprint of the credential to renew (no secret). */
export const renewJobSchema = z.object({
  shop: z.string().regex(SHOP_ID_PATTERN, 'not a shop id'),
  reason: z.enum(['due', 'rejected']),
  fingerprint: z.string().max(64),
  requestId: z.string().optional(),
});
export type RenewJob = z.infer<typeof renewJobSchema>;

/**
 * The providers queue: each shop's renewal as a job, deduplicated per shop and credential, and
 * the renewal and webhook passes as job schedulers. Its keys are under its own hash tag.
 */
export class BullmqProviderJobs {
  readonly queue: Queue;
  private events?: { queueEvents: QueueEvents; connection: RedisCommands };

  constructor(
    connection: ConnectionOptions,
    private readonly prefix: string,
    private readonly options: {
      logger: Logger;
      /** A connection that may block (a worker's profile): what the queue's events are read on. */
      eventsConnection: () => RedisCommands;
    },
  ) {
    this.queue = connectorQueue(QUEUES.providers, connection, prefix);
  }

  /**
   * Renews in one process of all: a caller asking while the shop's credential has a renewal
   * under way waits for that job (BullMQ's deduplication), and is told it was not its own. No
   * outcome when the job still runs after RENEW_WAIT_MS; a failed job's error is thrown.
   */
  async run<T>(
    shop: string,
    request: Omit<RenewJob, 'shop'>,
  ): Promise<{ outcome?: T; ours: boolean }> {
    const ours = randomUUID();
    const queueEvents = this.queueEvents();
    const job = await this.queue.add(
      'renew',
      { shop, ...request, requestId: currentLogContext().requestId },
      { jobId: ours, deduplication: { id: `${shop}:${request.fingerprint}` }, ...RETENTION },
    );
    try {
      const outcome = (await job.waitUntilFinished(queueEvents, RENEW_WAIT_MS)) as T;
      return { outcome, ours: job.id === ours };
    } catch (error) {
      if ((await job.getState()) === 'failed') throw failureOf(errorMessage(error));
      return { ours: false };
    }
  }

  /** The passes, as job schedulers (one schedule however many workers upsert it), and now. */
  async schedule(): Promise<void> {
    const every = (name: string, ms: number) =>
      this.queue.upsertJobScheduler(name, { every: ms }, { name, opts: SCHEDULED_RETENTION });
    await every('renew-due', RENEWAL_CHECK_MS);
    await every('register-webhooks', WEBHOOK_CHECK_MS);
    // A worker's start runs both at once, as before the queue (a token due, a new PUBLIC_URL).
    const now = { data: {}, opts: SCHEDULED_RETENTION };
    await this.queue.addBulk([
      { name: 'renew-due', ...now },
      { name: 'register-webhooks', ...now },
    ]);
  }

  async close(): Promise<void> {
    await this.events?.queueEvents.close();
    if (this.events) await closeRedis(this.events.connection);
    await this.queue.close();
  }

  /** The queue's events, opened at the first wait; read from a minute back, so none is missed. */
  private queueEvents(): QueueEvents {
    if (!this.events) {
      const connection = this.options.eventsConnection();
      const queueEvents = new QueueEvents(QUEUES.providers, {
        connection,
        prefix: queuePrefix(this.prefix, QUEUES.providers),
        // '$' would be read only once its first read is sent: a job ending before it is missed.
        lastEventId: `${Date.now() - 60_000}-0`,
      });
      const source = { queueEvents: QUEUES.providers };
      queueEvents.on('error', connectionErrorLogger(this.options.logger, source));
      this.events = { queueEvents, connection };
    }
    return this.events.queueEvents;
  }
}

/** The error a job failed with, from its failed reason (`CODE: message` for an AppError). */
function failureOf(reason: string): Error {
  const [, code = '', message = reason] = /^([A-Z_]+): (.*)$/s.exec(reason) ?? [];
  return Object.hasOwn(ERROR_CATALOGUE, code)
    ? new AppError(code as ErrorCode, message)
    : new Error(reason);
}
