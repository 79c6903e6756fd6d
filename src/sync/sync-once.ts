import { AppError, errorMessage } from '../errors';
import { batchesOf } from './batches';
import { deliverBatch } from './deliver-service';
import type { PassCounts, SyncDeps, SyncItem } from './ports';
import { runSyncPass } from './sync-pass';

export interface OnceCounts extends PassCounts {
  delivered: number;
  failed: number;
}

/** One failed delivery of a foreground pass, as the CLI reports it. */
export interface OnceFailure {
  serviceId: number;
  reason: string;
}

/**
 * A pass in the foreground (`connector sync --once`): the same pass and the same delivery as
 * the queued sync, but each page's new and changed services are delivered here, `concurrency`
 * at a time, before the next page is read. A failed delivery is counted and reported, not
 * retried: the next pass (or the scheduled sync) sends it again, since it was not recorded.
 */
export async function syncOnce(
  deps: SyncDeps,
  options: { concurrency: number; pageSize?: number; onFailure?: (failure: OnceFailure) => void },
): Promise<OnceCounts> {
  let delivered = 0;
  let failed = 0;
  const report = async (items: SyncItem[], reasons: unknown[]): Promise<void> => {
    failed += items.length;
    items.forEach((item, i) => {
      const error = reasons[i];
      const reason =
        error instanceof AppError ? `${error.message} (${error.code})` : errorMessage(error);
      options.onFailure?.({ serviceId: item.serviceId, reason });
    });
  };
  const deliverLanes = async (items: readonly SyncItem[]): Promise<void> => {
    // `concurrency` lanes, each a batch delivered in order, as the queue's worker slots do.
    const lanes = batchesOf(items, Math.ceil(items.length / options.concurrency));
    const counts = await Promise.all(lanes.map((lane) => deliverBatch(deps, lane, report)));
    for (const count of counts) delivered += count.delivered;
  };
  const counts = await runSyncPass(
    deps,
    { deliver: deliverLanes, deliverAlone: deliverLanes },
    { pageSize: options.pageSize },
  );
  return {
    seen: counts.seen,
    new: counts.new,
    changed: counts.changed,
    unchanged: counts.unchanged,
    delivered,
    failed,
  };
}
