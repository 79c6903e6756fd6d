import { textOf } from '../platform/schemas';
import {
  deliveredFingerprint,
  hasPayment,
  serviceFingerprint,
  withConnectorPayment,
} from './fingerprint';
import type { SyncDeps, SyncItem } from './ports';

export type ServiceDelivery = 'delivered' | 'unchanged' | 'gone';

type DeliveryDeps = Pick<SyncDeps, 'platform' | 'ledger' | 'sink' | 'log' | 'payments'>;

/**
 * Hands one service's detail to the ERP unless `delivered` is its version already, and links
 * the ERP's order code back; the caller records it, once delivered.
 */
async function handOver(
  deps: DeliveryDeps,
  serviceId: number,
  delivered: string | undefined,
  /** The pass saw it without a planned checkout (its fingerprint): its payment is not read. */
  unplanned = false,
): Promise<{ result: ServiceDelivery; fingerprint?: string }> {
  const lookup = await deps.platform.getServiceAsSent(serviceId);
  if (!lookup.found) {
    // A service the platform no longer has is not removed from the ERP (nor is one that left
    // the synced statuses): the ERP keeps what it was given.
    deps.log.warn('service to sync is gone from the platform', { serviceId });
    return { result: 'gone' };
  }
  const [payment] = deps.payments && !unplanned ? await deps.payments.of([serviceId]) : [];
  const fingerprint = deliveredFingerprint(serviceFingerprint(lookup.service), payment);
  if (delivered === fingerprint) return { result: 'unchanged' };
  // Read what is needed after the sink now: nothing here keeps the whole service alive while
  // the sink waits on the ERP or the disk (with many deliveries in flight, that is the heap).
  const current = textOf((lookup.sent as { internal_code?: unknown } | null)?.internal_code);
  const receipt = await deps.sink.deliver({
    serviceId,
    sent: withConnectorPayment(lookup.sent, payment),
    deliveryId: `${serviceId}-${fingerprint}`,
  });
  const code = receipt.internalCode;
  if (code !== undefined && code !== current) {
    await deps.platform.linkService(serviceId, code);
    deps.log.info('service linked to its ERP order', { serviceId, internalCode: code });
  }
  return { result: 'delivered', fingerprint };
}

/** Delivers one service and only then records it: a failure is retried, a success not resent. */
export async function deliverService(
  deps: DeliveryDeps,
  serviceId: number,
): Promise<ServiceDelivery> {
  const [delivered] = await deps.ledger.fingerprints([serviceId]);
  const { result, fingerprint } = await handOver(deps, serviceId, delivered);
  if (fingerprint) {
    await deps.ledger.remember([{ serviceId, fingerprint }]);
    deps.log.info('service delivered to the ERP', { serviceId, sink: deps.sink.kind });
  }
  return result;
}

export interface BatchCounts {
  delivered: number;
  unchanged: number;
  gone: number;
  /** Handed to `alone`: each is retried on its own. */
  failed: number;
}

/**
 * Delivers a page's new and changed services, one ledger read and one write for all; one that
 * fails is handed to `alone` (its own job). What was delivered is recorded even when `alone`
 * throws.
 */
export async function deliverBatch(
  deps: DeliveryDeps,
  items: readonly SyncItem[],
  alone: (failed: SyncItem[], reasons: unknown[]) => Promise<void>,
): Promise<BatchCounts> {
  const counts: BatchCounts = { delivered: 0, unchanged: 0, gone: 0, failed: 0 };
  const ledger = await deps.ledger.fingerprints(items.map((item) => item.serviceId));
  const delivered: SyncItem[] = [];
  const failed: SyncItem[] = [];
  const reasons: unknown[] = [];
  try {
    for (const [i, item] of items.entries()) {
      // Delivered since the pass saw it (another pass, a paid checkout): nothing to read.
      if (ledger[i] === item.fingerprint) {
        counts.unchanged += 1;
        continue;
      }
      try {
        const unplanned = !hasPayment(item.fingerprint);
        const { result, fingerprint } = await handOver(deps, item.serviceId, ledger[i], unplanned);
        counts[result] += 1;
        if (fingerprint) delivered.push({ serviceId: item.serviceId, fingerprint });
      } catch (error) {
        failed.push(item);
        reasons.push(error);
      }
    }
  } finally {
    if (delivered.length > 0) await deps.ledger.remember(delivered);
  }
  if (delivered.length > 0)
    deps.log.info('services delivered to the ERP', {
      count: delivered.length,
      sink: deps.sink.kind,
    });
  counts.failed = failed.length;
  if (failed.length > 0) await alone(failed, reasons);
  return counts;
}
