import type { Redis } from 'ioredis';
import { AppError } from '../errors';
import { primaryFor, type RedisCommands } from './redis';

/** A server's answer that it does not let this user run a command at all. */
const REFUSED = /^NOPERM\b|^ERR unknown command\b/;

/** How long a primary's count of replicas, when it has some, is taken as read. */
const REPLICAS_READ_FOR_MS = 1000;

/** A command shared by the callers of one moment: the one in flight, and the next. */
interface Batch {
  inFlight?: Promise<unknown>;
  next?: Promise<unknown>;
}

/** Beyond WAIT's own timeout, how long an INFO or a WAIT may go unanswered. */
const ANSWER_MARGIN_MS = 1000;

/**
 * Holds until a replica has this connection's writes (`WAIT 1 <timeout>`, sent after them on the
 * same connection, never inside a script or MULTI), where the primary has replicas in sync; a
 * lone primary is not waited on. On a Cluster the caller names a key of each hash tag it wrote
 * (a shop's data, a queue), and the primaries their slots are routed to now are waited on, at
 * once: WAIT covers what was written on that node's connection, which is where the cluster
 * routed those writes. A primary the caller did not write to is not asked, so one that is down
 * holds up only those whose writes it took. The count of replicas (those `state=online` in
 * `INFO replication`: one still loading its first copy acknowledges nothing) is read after the
 * caller's writes while the primary has none, at most once a second while it has some (see
 * `onlineReplicas`).
 *
 * WAIT blocks its connection in Redis until the replica answers, and every request shares the
 * producer connection: one WAIT per caller would stall it once per caller. So callers share
 * WAITs (a group commit): with none in flight, a caller sends one; while one is in flight (it may
 * have been sent before the caller's writes), callers join the next, sent as soon as it returns,
 * which covers all of them. At most one WAIT runs per connection, and one more waits its turn;
 * the reads of the count are shared alike.
 */
export class ReplicaWait {
  // By connection: a Cluster's node connections come and go with failovers.
  private readonly replicas = new WeakMap<Redis, { count: number; readAt: number }>();
  // Connections whose server refuses INFO or WAIT (a managed service's restricted commands).
  private readonly refused = new WeakSet<Redis>();
  // By connection and command (WAIT, INFO): the one in flight, and the one callers joined since.
  private readonly batches = new WeakMap<Redis, Map<string, Batch>>();

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
    if (this.refused.has(node) || (await this.onlineReplicas(node)) === 0) return;
    const acknowledged = await this.shared(node, 'WAIT', () =>
      this.bounded(node.call('WAIT', '1', String(this.timeoutMs)), 'WAIT').then(Number),
    ).catch((error: unknown) => {
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

  /**
   * `command`'s answer, sent after this call, shared with the callers of the same moment: with
   * none in flight on the connection it is sent now; while one is (it may have gone out before
   * this caller's writes), the caller joins the next, sent as soon as that one returns.
   */
  private shared<T>(node: Redis, command: string, send: () => Promise<T>): Promise<T> {
    let commands = this.batches.get(node);
    if (!commands) this.batches.set(node, (commands = new Map()));
    let batch = commands.get(command);
    if (!batch) commands.set(command, (batch = {}));
    const state = batch;
    const sendNow = (): Promise<T> => {
      const answer = send();
      state.inFlight = answer;
      const done = () => {
        if (state.inFlight === answer) state.inFlight = undefined;
      };
      answer.then(done, done);
      return answer;
    };
    if (!state.inFlight) return sendNow();
    state.next ??= state.inFlight
      .catch(() => undefined)
      .then(() => {
        state.next = undefined;
        return sendNow();
      });
    return state.next as Promise<T>;
  }

  /**
   * The primary's replicas in sync. A count of some is taken as read for a second (a replica
   * lost meanwhile only makes the WAIT fail, and the count be read again). A count of none is
   * never taken as read: it is read again after each caller's writes (shared as WAIT is), so a
   * replica that has just joined is waited on from its first moment in sync. Kept for a second,
   * "none" let writes be acknowledged unreplicated right after a failed primary rejoined as a
   * replica, and lost when the primary died at once (the Cluster drill found it).
   */
  private async onlineReplicas(node: Redis): Promise<number> {
    const now = (this.options.clock ?? Date.now)();
    const known = this.replicas.get(node);
    if (known && known.count > 0 && now - known.readAt < REPLICAS_READ_FOR_MS) {
      return known.count;
    }
    const count = await this.shared(node, 'INFO', () =>
      this.bounded(node.info('replication'), 'INFO').then(
        (info) => [...info.matchAll(/^slave\d+:.*\bstate=online\b/gm)].length,
      ),
    ).catch((error: unknown) => {
      this.refusedBy(node, 'INFO', error);
      return 0;
    });
    if (count > 0) this.replicas.set(node, { count, readAt: now });
    else this.replicas.delete(node);
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
