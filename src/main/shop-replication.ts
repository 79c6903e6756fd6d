import type { Replication, WrittenTo } from '../checkout/ports';
import { queuePrefix, shopTag } from '../redis/keyspace';
import type { ReplicaWait } from '../redis/replica-wait';
import { QUEUES } from '../jobs/queue-names';

/**
 * One shop's view of the replica wait: each place a use case names is a key under the hash tag
 * its writes went to (src/redis/keyspace.ts), so that on a Cluster the wait goes to the
 * primaries that took them, and only those.
 */
export function shopReplication(wait: ReplicaWait, prefix: string, shop: string): Replication {
  const tags: Record<WrittenTo, string> = {
    'shop-data': shopTag(prefix, shop),
    'checkout-queue': queuePrefix(prefix, QUEUES.checkout),
    'notification-queue': queuePrefix(prefix, QUEUES.notifications),
    'sync-queue': queuePrefix(prefix, QUEUES.sync),
  };
  return { held: (...written) => wait.held(written.map((place) => tags[place])) };
}
