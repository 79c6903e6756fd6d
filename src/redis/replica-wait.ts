import type { Redis } from 'ioredis';
import { AppError } from '../errors';
import { isCluster, primaries, primaryFor, type RedisCommands } from './redis';

/** A server's answer that it does not let this user run a command at all. */
const REFUSED = /^NOPERM\b|^ERR unknown command\b/;

/**
 * How long a primary's count of replicas is taken as read: while it has none (a replica that
 * comes in sync is waited on within this), and while it has some (one lost meanwhile only makes
 * the WAIT fail, and the count be read again at once).
 */
export const REPLICAS_READ_FOR_MS = Object.freeze({ none: 100, some: 1000 });

/** Beyond WAIT's own timeout, how long an INFO or a WAIT may go unanswered. */
const ANSWER_MARGIN_MS = 1000;

type WaitBatch = { inFlight?: Promise<number>; next?: Promise<number> };

/**
 * Holds until a replica has this connection's writes (`WAIT 1 <timeout>`, sent after them on the
 * same connection, never inside a script or MULTI), where the primary has replicas in sync; a
 * lone primary is not waited on. On a Cluster the caller names a key of each hash tag it wrote
 * (a shop's data, a queue), and the primaries their slots are routed to now are waited on, at
 * once; a primary the caller did not write to is not asked, so one that is down holds up only
 * those whose writes it took.
 *
 * The count of replicas (`state=online` in `INFO replication`: one still taking its first copy
 * acknowledges nothing) is never read on a caller's way: it is read at start, on every
 * (re)connection and Cluster refresh, and aside once older than REPLICAS_READ_FOR_MS (the caller
 * who finds it so goes on with it as it was). Only a primary never read yet (a Cluster node first
 * written to) has its first caller wait for the read.
 *
 * WAIT blocks its connection in Redis until the replica answers, and every request shares the
 * producer connection, so callers share WAITs (a group commit): with none in flight, a caller
 * sends one; while one is in flight (it may have been sent before the caller's writes), callers
 * join the next, sent as soon as it returns, which covers all of them.
 */
export class ReplicaWait {
  // All by connection: a Cluster's node connections come and go with failovers.
  private readonly readings = new WeakMap<Redis, { count: number; askedAt: number }>();
  private readonly reads = new WeakMap<Redis, Promise<number>>();
  private readonly refused = new WeakSet<Redis>();
  private readonly batches = new WeakMap<Redis, WaitBatch>();

  constructor(
    private readonly redis: RedisCommands,
    private readonly options: {
      timeoutMs?: number;
      clock?: () => number;
      /** Told once per connection whose server refuses INFO or WAIT. */
      warn?: (message: string, meta: Record<string, unknown>) => void;
    } = {},
  ) {
    const readAll = () => primaries(redis).forEach((node) => this.readAside(node));
    redis.on('ready', readAll);
    if (isCluster(redis)) redis.on('refresh', readAll);
    if (redis.status === 'ready') readAll();
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 2000;
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  /**
   * Resolves once a replica holds this connection's writes to the tags of `keys` (any key under
   * each tag written; on one server they only say a write was made). Fails REDIS_UNAVAILABLE when
   * none confirms in time, or when no live primary is known for one of them: the write it took
   * may be lost with it.
   */
  async held(keys: readonly string[]): Promise<void> {
    const nodes = new Set<Redis>();
    for (const key of keys) {
      const node = primaryFor(this.redis, key);
      if (!node) {
        throw new AppError(
          'REDIS_UNAVAILABLE',
          'No Redis primary is known for data just written: its node may have failed.',
        );
      }
      nodes.add(node);
    }
    await Promise.all([...nodes].map((node) => this.heldBy(node)));
  }

  private async heldBy(node: Redis): Promise<void> {
    if (this.refused.has(node) || (await this.replicas(node)) === 0) return;
    const acknowledged = await this.sharedWait(node).catch((error: unknown) => {
      this.refusedBy(node, 'WAIT', error);
      return Infinity;
    });
    if (acknowledged >= 1) return;
    // What was written may be lost in a failover: nothing that rests on it goes out now; the
    // caller's retry tries again, with the count read again meanwhile.
    this.readAside(node);
    throw new AppError(
      'REDIS_UNAVAILABLE',
      `No Redis replica confirmed the write within ${this.timeoutMs} ms.`,
    );
  }

  /** `WAIT`'s answer, sent after this call, shared with this moment's callers (a group commit). */
  private sharedWait(node: Redis): Promise<number> {
    let batch = this.batches.get(node);
    if (!batch) this.batches.set(node, (batch = {}));
    const state = batch;
    const sendNow = (): Promise<number> => {
      const answer = this.bounded(node.call('WAIT', '1', String(this.timeoutMs)), 'WAIT');
      const sent = (state.inFlight = answer.then(Number));
      const done = () => {
        if (state.inFlight === sent) state.inFlight = undefined;
      };
      sent.then(done, done);
      return sent;
    };
    if (!state.inFlight) return sendNow();
    state.next ??= state.inFlight
      .catch(() => undefined)
      .then(() => {
        state.next = undefined;
        return sendNow();
      });
    return state.next;
  }

  /** The primary's replicas in sync as last read; read in the background once that is old. */
  private replicas(node: Redis): Promise<number> | number {
    const known = this.readings.get(node);
    if (!known) return this.read(node);
    const forMs = known.count > 0 ? REPLICAS_READ_FOR_MS.some : REPLICAS_READ_FOR_MS.none;
    if (this.now() - known.askedAt >= forMs) this.readAside(node);
    return known.count;
  }

  /** Reads the count in the background; a failure leaves it as it was, for the next try. */
  private readAside(node: Redis): void {
    this.read(node).catch(() => undefined);
  }

  /** Reads the primary's count of replicas in sync; one read at a time per connection. */
  private read(node: Redis): Promise<number> {
    const inFlight = this.reads.get(node);
    if (inFlight) return inFlight;
    const askedAt = this.now();
    const read = this.bounded(node.info('replication'), 'INFO')
      .then((info) => [...info.matchAll(/^slave\d+:.*\bstate=online\b/gm)].length)
      .catch((error: unknown) => {
        this.refusedBy(node, 'INFO', error);
        return 0;
      })
      .then((count) => {
        this.readings.set(node, { count, askedAt });
        return count;
      })
      .finally(() => this.reads.delete(node));
    this.reads.set(node, read);
    return read;
  }

  /**
   * `answer`, or REDIS_UNAVAILABLE once unanswered past WAIT's timeout and a margin: a primary
   * that hangs, or a Cluster node that died, may never answer, and would hold every caller that
   * joined its WAIT for good; the caller retries instead.
   */
  private bounded<T>(answer: Promise<T>, command: string): Promise<T> {
    const limitMs = this.timeoutMs + ANSWER_MARGIN_MS;
    let timer: NodeJS.Timeout | undefined;
    const message = `Redis did not answer ${command} within ${limitMs} ms.`;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('REDIS_UNAVAILABLE', message)), limitMs);
    });
    // The command's own failure, once given up on, is nobody's to handle.
    answer.catch(() => undefined);
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  /**
   * A server that refuses INFO or WAIT itself (ACL's NOPERM, a command renamed away: a managed
   * service) is not waited on again: its durability is the service's. Any other failure (the
   * connection, a demoted primary's "WAIT cannot be used with replica instances") is the caller's
   * to retry: the connection reconnects to the primary.
   */
  private refusedBy(node: Redis, command: string, error: unknown): void {
    if (!(error instanceof Error) || !REFUSED.test(error.message)) throw error;
    this.refused.add(node);
    this.options.warn?.('redis refuses a command the replica wait needs; not waiting there', {
      command,
      cause: error.message,
    });
  }
}
