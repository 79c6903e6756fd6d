import { recordOutcome } from '../../src/checkout/settle-checkout';
import { closeRedis, createRedis, waitForRedis } from '../../src/infra/redis';
import { BullmqCheckoutJobs } from '../../src/jobs/bullmq-checkout-jobs';
import { useCaseSuite } from '../support/checkout-deps';
import { startTestRedis } from '../support/redis-server';

/*
 * An outcome and its finish/cancel are two writes, and on a Redis Cluster they land on two
 * nodes (the shop's data, the notifications queue): a failover between them leaves the outcome
 * recorded and its notification not queued, and the caller (a webhook, the sandbox's Pay) gets
 * an error and tries again. The retry finds the outcome settled: it must still see the
 * notification queued before it answers, not leave it to the reconciler's next pass. Here the
 * queues live on a Redis of their own, stopped between the two writes.
 */
describe('an outcome whose notification failed to be queued', () => {
  const suite = useCaseSuite();

  it('is queued by the retry that finds the outcome settled, once, and never for another outcome', async () => {
    const queues = await startTestRedis({ private: true });
    const connection = createRedis(queues.url, 'producer', 'queues');
    connection.on('error', () => undefined);
    const jobs = new BullmqCheckoutJobs(connection, suite.world.prefix, { notifyMaxAttempts: 3 });
    try {
      const deps = { ...suite.world.deps, jobs: jobs.forShop('default') };
      const checkoutId = await suite.checkout();
      const record = await deps.store.get(checkoutId);
      if (!record) throw new Error('no record');

      await queues.stop();
      await expect(recordOutcome(deps, record, 'paid', {})).rejects.toThrow();
      expect((await deps.store.get(checkoutId))?.state).toBe('paid');

      await queues.start();
      expect(await waitForRedis(connection, 10_000)).toBe(true);
      // The retry: already settled, and the finish is queued now.
      expect(await recordOutcome(deps, record, 'paid', {})).toBe(false);
      const finish = await jobs.notificationQueue.getJob(`finish-${checkoutId}`);
      expect(finish?.data).toMatchObject({ checkoutId, kind: 'finish' });
      // Again: the same job, not a second one; a late decline queues no cancel.
      expect(await recordOutcome(deps, record, 'paid', {})).toBe(false);
      expect(await recordOutcome(deps, record, 'declined', {})).toBe(false);
      const counts = await jobs.notificationQueue.getJobCounts('waiting', 'delayed', 'active');
      expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(1);
      expect(await jobs.notificationQueue.getJob(`cancel-${checkoutId}`)).toBeUndefined();
    } finally {
      await jobs.close();
      await closeRedis(connection);
      await queues.close();
    }
  }, 60_000);
});
