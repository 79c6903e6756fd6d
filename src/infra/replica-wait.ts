import type { Redis } from 'ioredis';
import { AppError } from '../errors';
import { primaries, type RedisCommands } from './redis';

/** A server's answer that it does not let this user run a command at all. */
const REFUSED = /^NOPERM\b|^ERR unknown command\b/;

/** How long the number of replicas of a primary is taken as read. */
const REPLICAS_READ_FOR_MS = 1000;

/** Beyond WAIT's own timeout, how long an INFO or a WAIT may go unanswered. */
const ANSWER_MARGIN_MS = 1000;

/**
 * Holds until a replica has this connection's writes (`WAIT 1 <timeout>`, sent after them on the
 * same connection, never inside a script or MULTI), where the primary has replicas in sync; a
 * lone primary is not waited on. On a Cluster, every primary the connection writes to is waited
 * on, at once: WAIT covers what was written on that node's connection, which is where the
 * cluster routed the writes of its slots. The count of replicas (those `state=online` in
 * `INFO replication`: one still loading its first copy acknowledges nothing) is read at most
 * once a second per primary, so a failover to a primary without replicas (or a replica joining)
 * is seen within a second.
 *
 * WAIT blocks its connection in Redis until the replica answers, and every request shares the
 * producer connection: one WAIT per caller would stall it once per caller. So callers share
 * WAITs (a group commit): with none in flight, a caller sends one; while one is in flight (it may
 * have been sent before the caller's writes), callers join the next, sent as soon as it returns,
 * which covers all of them. At most one WAIT runs per connection, and one more waits its turn.
 */
export class ReplicaWait {
  // By connection: a Cluster's node connections come and go with failovers.
  private readonly replicas = new WeakMap<Redis, { count: Promise<number>; readAt: number }>();
  // Connections whose server refuses INFO or WAIT (a managed service's restricted commands).
  private readonly refused = new WeakSet<Redis>();
  // The WAIT in flight on a connection, and the one callers joined since it was sent.
  private readonly batches = new WeakMap<
    Redis,
    { inFlight?: Promise<number>; next?: Promise<number> }
  >();

  constructor(
    private readonly redis: RedisCommands,
    private readonly options: {
      timeoutMs?: number;
      clock?: () => number;
      /** Told once per connection whose server refuses INFO or WAIT. */
      warn?: (message: string, meta: Record<string, unknown>) => void;
    } = {},
  ) {}

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 2000;
  }

  async held(): Promise<void> {
    await Promise.all(primaries(this.redis).map((node) => this.heldBy(node)));
  }

  private async heldBy(node: Redis): Promise<void> {
    if (this.refused.has(node) || (await this.onlineReplicas(node)) === 0) return;
    const acknowledged = await this.sharedWait(node).catch((error: unknown) => {
      this.refusedBy(node, 'WAIT', error);
      return Infinity;
    });
    if (acknowledged >= 1) return;
    // A replica said to be in sync did not confirm in time: what was written may be lost in a
    // failover, so nothing that rests on it goes out now; the caller's retry tries again.
    this.replicas.delete(node);
    throw new AppError(
      'REDIS_UNAVAILABLE',
      `No Redis replica confirmed the write within ${this.timeoutMs} ms.`,
    );
  }

  /** A WAIT sent after this call, shared with the callers of the same moment (see above). */
  private sharedWait(node: Redis): Promise<number> {
    let batch = this.batches.get(node);
    if (!batch) this.batches.set(node, (batch = {}));
    const state = batch;
    const send = (): Promise<number> => {
      const answer = this.bounded(node.call('WAIT', '1', String(this.timeoutMs)), 'WAIT').then(
        Number,
      );
      state.inFlight = answer;
      const done = () => {
        if (state.inFlight === answer) state.inFlight = undefined;
      };
      answer.then(done, done);
      return answer;
    };
    if (!state.inFlight) return send();
    state.next ??= state.inFlight
      .catch(() => 0)
      .then(() => {
        state.next = undefined;
        return send();
      });
    return state.next;
  }

  /** Replicas in sync, read at most once a second; callers of the same moment share the read. */
  private onlineReplicas(node: Redis): Promise<number> {
    const now = (this.options.clock ?? Date.now)();
    const known = this.replicas.get(node);
    if (known && now - known.readAt < REPLICAS_READ_FOR_MS) return known.count;
    const count = this.bounded(node.info('replication'), 'INFO').then(
      (info) => [...info.matchAll(/^slave\d+:.*\bstate=online\b/gm)].length,
      (error: unknown) => {
        this.refusedBy(node, 'INFO', error);
        return 0;
      },
    );
    this.replicas.set(node, { count, readAt: now });
    // A failed read is not kept: the next caller reads again.
    count.catch(() => this.replicas.delete(node));
    return count;
  }

  /**
   * `answer`, or REDIS_UNAVAILABLE once it has gone unanswered past WAIT's timeout and a margin.
   * A node may never answer: a primary that hangs, or a Cluster node that died, whose connection
   * keeps its commands while it tries to reconnect. Waiting for it would hold the caller (a
   * request, a job) and every caller that joined its WAIT, for good; the caller retries instead.
   */
  private bounded<T>(answer: Promise<T>, command: string): Promise<T> {
    const limitMs = this.timeoutMs + ANSWER_MARGIN_MS;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new AppError(
              'REDIS_UNAVAILABLE',
              `Redis did not answer ${command} within ${limitMs} ms.`,
            ),
          ),
        limitMs,
      );
    });
    // The command's own failure, once given up on, is nobody's to handle.
    answer.catch(() => undefined);
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  /**
   * A server that refuses INFO or WAIT (NOPERM, an unknown command: a managed service that
   * restricts them) is not waited on again: its durability is the service's. Any other failure
   * (the connection, a server that is no longer the primary) is the caller's to retry.
   */
  private refusedBy(node: Redis, command: string, error: unknown): void {
    // Only a refusal of the command itself (ACL's NOPERM, a command renamed away). Any other
    // answer, such as a demoted primary's "WAIT cannot be used with replica instances", is about
    // this moment: the caller's retry tries again (the connection reconnects to the primary).
    if (!(error instanceof Error) || !REFUSED.test(error.message)) throw error;
    this.refused.add(node);
    this.options.warn?.('redis refuses a command the replica wait needs; not waiting there', {
      command,
      cause: error.message,
    });
  }
}
