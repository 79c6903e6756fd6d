import type { RedisCommands } from '../redis/redis';
import { runScript } from '../redis/redis-scripts';
import { UnreadableRecord } from '../checkout/checkout-record';
import type { ParkedUnreadable, ReconcileBacklog, ReconcileLine } from '../checkout/ports';
import type { CheckoutKeys } from './checkout-keys';
import { pairsOf } from './checkout-codec';
import { PARK } from './checkout-scripts';
import { readRecords } from './read-records';

/** Parked checkouts are remembered as long as BullMQ keeps their failed jobs. */
const KEEP_PARKED_MS = 30 * 86_400_000;

/** One shop's reconciler line, and the sets of checkouts taken out of it (parked, unreadable). */
export class RedisReconcileLine implements ReconcileLine {
  constructor(
    private readonly redis: RedisCommands,
    private readonly keys: CheckoutKeys,
  ) {}

  async dueCheckouts(now: Date, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.due, '-inf', now.getTime(), 'LIMIT', 0, limit);
  }

  async scheduleLooks(looks: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void> {
    if (looks.length === 0) return;
    const pairs = looks.flatMap((look) => [look.at.getTime(), look.checkoutId]);
    // XX: a checkout reported or parked meanwhile is not put back in line.
    await this.redis.zadd(this.keys.due, 'XX', ...pairs);
  }

  async inLine(checkoutId: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.due, checkoutId)) !== null;
  }

  async reconcileBacklog(now: Date): Promise<ReconcileBacklog> {
    const [due, first, unreadable, watched, watchDue] = await Promise.all([
      this.redis.zcount(this.keys.due, '-inf', now.getTime()),
      this.redis.zrange(this.keys.due, 0, 0, 'WITHSCORES'),
      this.redis.zcard(this.keys.unreadable),
      this.redis.zcard(this.keys.watch),
      this.redis.zcount(this.keys.watch, '-inf', now.getTime()),
    ]);
    const oldestDueAt = due > 0 && first[1] !== undefined ? new Date(Number(first[1])) : undefined;
    return { due, oldestDueAt, unreadable, watched, watchDue };
  }

  async parkFailedDelivery(checkoutId: string, now: Date): Promise<void> {
    const keys = [this.keys.record(checkoutId), this.keys.due, this.keys.parked];
    await runScript(this.redis, PARK, 3, ...keys, now.getTime(), KEEP_PARKED_MS, checkoutId);
  }

  async parkUnreadable(checkoutId: string, now: Date): Promise<void> {
    // Both keys are under the shop's tag: one slot, so one MULTI on a Cluster too.
    await this.redis
      .multi()
      .zrem(this.keys.due, checkoutId)
      .zadd(this.keys.unreadable, now.getTime(), checkoutId)
      .exec();
  }

  async unreadableCheckouts(limit: number): Promise<ParkedUnreadable[]> {
    const listed = await this.redis.zrange(this.keys.unreadable, 0, limit - 1, 'WITHSCORES');
    const parked = pairsOf(listed);
    const ids = parked.map(([checkoutId]) => checkoutId);
    const records = await readRecords(this.redis, this.keys, ids);
    // A record gone (purged, or deleted by the person who looked) leaves the set.
    const gone = ids.filter((_, i) => records[i] === undefined);
    if (gone.length > 0) await this.redis.zrem(this.keys.unreadable, ...gone);
    return parked.flatMap(([checkoutId, score], i) => {
      const record = records[i];
      if (record === undefined) return [];
      const problem = record instanceof UnreadableRecord ? record.problem : undefined;
      return [{ checkoutId, parkedAt: new Date(Number(score)), problem }];
    });
  }

  async dueWatches(now: Date, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.watch, '-inf', now.getTime(), 'LIMIT', 0, limit);
  }

  async scheduleWatches(reads: ReadonlyArray<{ checkoutId: string; at: Date }>): Promise<void> {
    if (reads.length === 0) return;
    const pairs = reads.flatMap((read) => [read.at.getTime(), read.checkoutId]);
    await this.redis.zadd(this.keys.watch, 'XX', ...pairs);
  }

  async endWatches(checkoutIds: readonly string[]): Promise<void> {
    if (checkoutIds.length > 0) await this.redis.zrem(this.keys.watch, ...checkoutIds);
  }

  async watchSize(): Promise<number> {
    return this.redis.zcard(this.keys.watch);
  }

  async retire(
    checkoutId: string,
    note?: { field: 'cancelDropped'; value: string },
  ): Promise<void> {
    // The note goes on the record, in the same MULTI: both keys are under the shop's tag.
    const multi = this.redis.multi().zrem(this.keys.due, checkoutId);
    if (note) multi.hset(this.keys.record(checkoutId), note.field, note.value);
    await multi.exec();
  }

  async noteBalance(checkoutId: string, dueAt: Date | undefined): Promise<void> {
    if (dueAt) await this.redis.zadd(this.keys.balances, dueAt.getTime(), checkoutId);
    else await this.redis.zrem(this.keys.balances, checkoutId);
  }

  async balances(now: Date): Promise<{ due: number; overdue: number }> {
    const [due, overdue] = await Promise.all([
      this.redis.zcard(this.keys.balances),
      this.redis.zcount(this.keys.balances, '-inf', `(${now.getTime()}`),
    ]);
    return { due, overdue };
  }
}
