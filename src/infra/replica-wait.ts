import type { Redis } from 'ioredis';
import { AppError } from '../errors';

/** How long the number of connected replicas is taken as read. */
const REPLICAS_READ_FOR_MS = 1000;

/**
 * Holds until a replica has this connection's writes (`WAIT 1 <timeout>`, sent after them on the
 * same connection, never inside a script or MULTI), where the primary has replicas connected; a
 * lone primary is not waited on. The count of replicas comes from `INFO replication`, read at
 * most once a second, so a failover to a primary without replicas (or a replica joining) is
 * seen within a second.
 */
export class ReplicaWait {
  private replicas: { count: number; readAt: number } | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly timeoutMs = 2000,
    private readonly clock: () => number = Date.now,
  ) {}

  async held(): Promise<void> {
    if ((await this.connectedReplicas()) === 0) return;
    const acknowledged = Number(await this.redis.call('WAIT', '1', String(this.timeoutMs)));
    if (acknowledged >= 1) return;
    // A replica said to be connected did not confirm in time: what was written may be lost in a
    // failover, so nothing that rests on it goes out now; the caller's retry tries again.
    this.replicas = undefined;
    throw new AppError(
      'REDIS_UNAVAILABLE',
      `No Redis replica confirmed the write within ${this.timeoutMs} ms.`,
    );
  }

  private async connectedReplicas(): Promise<number> {
    const now = this.clock();
    if (this.replicas && now - this.replicas.readAt < REPLICAS_READ_FOR_MS) {
      return this.replicas.count;
    }
    const info = await this.redis.info('replication');
    const count = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
    this.replicas = { count, readAt: now };
    return count;
  }
}
