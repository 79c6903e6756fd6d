import { nextWatchAt } from '../checkout/pix-watch';
import { scanPrimaries, type RedisCommands } from '../redis/redis';
import { checkoutKeys } from './checkout-keys';
import { scopeOf } from './retention-migration';

/*
 * The release with the Pix watch puts a checkout paid by Pix in its shop's watch when it is
 * recorded paid. `connector migrate` puts there the ones recorded paid before (by the previous
 * release, or by one of its processes still running during a rolling upgrade) whose watch is not
 * over: each is due at once, then follows the watch's schedule. Adding is a no-op for one in the
 * watch already, so the connector may run meanwhile.
 */

/**
 * Puts every paid Pix under `prefix` paid within `watchDays` of `now` in its shop's watch, due
 * `now`. Returns how many were (or would be) added.
 */
export async function watchPaidPixOfBefore(
  redis: RedisCommands,
  prefix: string,
  watchDays: number,
  options: { dryRun?: boolean; now?: Date } = {},
): Promise<{ watched: number }> {
  const report = { watched: 0 };
  if (watchDays <= 0) return report;
  const now = options.now ?? new Date();
  for await (const batch of scanPrimaries(redis, `{${prefix}:shop:*}:chk:*`, 1000)) {
    for (const key of batch) {
      const scope = scopeOf(prefix, key);
      if (scope === undefined) continue;
      const fields = ['checkoutId', 'outcome', 'method', 'at_paid', 'updatedAt'];
      const [checkoutId, outcome, method, atPaid, updatedAt] = await redis.hmget(key, ...fields);
      if (!checkoutId || outcome !== 'paid' || method !== 'pix') continue;
      // Records written before the story's times have only their last write's.
      const paidAt = Date.parse(atPaid ?? updatedAt ?? '');
      if (Number.isNaN(paidAt) || !nextWatchAt(paidAt, now.getTime(), watchDays)) continue;
      const watch = checkoutKeys(prefix, scope).watch;
      if (options.dryRun) {
        if ((await redis.zscore(watch, checkoutId)) === null) report.watched += 1;
        continue;
      }
      report.watched += await redis.zadd(watch, 'NX', now.getTime(), checkoutId);
    }
  }
  return report;
}
