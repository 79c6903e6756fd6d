import type { ServiceListItem } from '../platform/schemas';
import { isServiceId } from '../shop/service-id';
import { deliveredFingerprint, serviceFingerprint } from './fingerprint';
import type { PassCounts, SyncDeps, SyncItem, SyncQueue } from './ports';

type Counts = PassCounts & { queued: number };

/**
 * A page's services not seen before in this pass, with their fingerprints. An id out of range
 * could be held by no job, ledger or checkout (the one range of ids): said, not synced.
 */
function freshItems(
  page: readonly ServiceListItem[],
  seen: Set<number>,
  log: SyncDeps['log'],
): SyncItem[] {
  const items: SyncItem[] = [];
  for (const item of page) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    if (!isServiceId(item.id)) {
      log.warn('service id out of range: not synced', { serviceId: item.id });
      continue;
    }
    items.push({ serviceId: item.id, fingerprint: serviceFingerprint(item) });
  }
  return items;
}

/** The items' fingerprints with the connector's payments of planned orders (one read a page). */
async function withPayments(
  deps: Pick<SyncDeps, 'payments'>,
  items: SyncItem[],
): Promise<SyncItem[]> {
  if (!deps.payments || items.length === 0) return items;
  const payments = await deps.payments.of(items.map((item) => item.serviceId));
  return items.map((item, i) => ({
    ...item,
    fingerprint: deliveredFingerprint(item.fingerprint, payments[i]),
  }));
}

/** Queues the items whose fingerprint differs from the one last delivered, and counts them. */
async function queueChanged(
  deps: Pick<SyncDeps, 'ledger'>,
  queue: SyncQueue,
  items: SyncItem[],
  counts: Counts,
): Promise<void> {
  const delivered = await deps.ledger.fingerprints(items.map((item) => item.serviceId));
  const toDeliver = items.filter((item, i) => {
    const last = delivered[i];
    if (last === item.fingerprint) counts.unchanged += 1;
    else if (last === undefined) counts.new += 1;
    else counts.changed += 1;
    return last !== item.fingerprint;
  });
  counts.seen += items.length;
  if (toDeliver.length > 0) {
    await queue.deliver(toDeliver);
    counts.queued += toDeliver.length;
  }
}

/**
 * One pass of the sync: pages through the services of each synced status, compares each light
 * item's fingerprint with the one last delivered, and hands the new and changed ones to
 * `queue` a page at a time. Only one page is held at a time; nothing is fetched in detail here.
 * A service seen under two statuses in one pass (it moved while the pass ran) counts once.
 */
export async function runSyncPass(
  deps: Pick<SyncDeps, 'platform' | 'ledger' | 'statuses' | 'log' | 'payments'>,
  queue: SyncQueue,
  options: { pageSize?: number } = {},
): Promise<Counts> {
  const counts = { seen: 0, new: 0, changed: 0, unchanged: 0, queued: 0 };
  const seen = new Set<number>();
  for (const status of deps.statuses) {
    const pages = deps.platform.iterateServicePages({ status }, { pageSize: options.pageSize });
    for await (const page of pages) {
      const items = await withPayments(deps, freshItems(page.items, seen, deps.log));
      if (items.length > 0) await queueChanged(deps, queue, items, counts);
    }
  }
  deps.log.info('sync pass done', { ...counts, statuses: deps.statuses });
  return counts;
}
