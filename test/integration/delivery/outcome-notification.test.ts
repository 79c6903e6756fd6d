import { expireCheckout } from '../../../src/checkout/expire-checkout';
import { handleProviderWebhook } from '../../../src/checkout/handle-provider-webhook';
import { produceCheckout } from '../../../src/checkout/produce-checkout';
import { requestCheckout } from '../../../src/checkout/request-checkout';
import {
  recordOutcome,
  syncCheckout,
  syncFromProvider,
} from '../../../src/checkout/settle-checkout';
import { closeRedis, createRedis, waitForRedis } from '../../../src/redis/redis';
import { BullmqCheckoutJobs } from '../../../src/jobs/bullmq-checkout-jobs';
import { BullmqSyncQueue } from '../../../src/jobs/bullmq-sync-queue';
import { recordIdOf } from '../../../src/checkout/payment-record';
import { sandboxWith, useCaseSuite } from '../../support/checkout-deps';
import { startTestRedis } from '../../support/redis-server';

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

  /** The use cases' deps with the queues on a Redis of their own, which the test stops. */
  async function withQueuesApart(
    test: (apart: {
      deps: typeof suite.world.deps;
      jobs: BullmqCheckoutJobs;
      stopQueues(): Promise<void>;
      startQueues(): Promise<void>;
    }) => Promise<void>,
  ): Promise<void> {
    const queues = await startTestRedis({ private: true });
    const connection = createRedis(queues.url, 'producer', 'queues');
    connection.on('error', () => undefined);
    const jobs = new BullmqCheckoutJobs(connection, suite.world.prefix, { notifyMaxAttempts: 3 });
    try {
      await test({
        deps: { ...suite.world.deps, jobs: jobs.forShop('default') },
        jobs,
        stopQueues: () => queues.stop(),
        startQueues: async () => {
          await queues.start();
          expect(await waitForRedis(connection, 10_000)).toBe(true);
        },
      });
    } finally {
      await jobs.close();
      await closeRedis(connection);
      await queues.close();
    }
  }

  it('is queued by the retried Pay, webhook or return, or the platform asking again, that finds the checkout paid', async () => {
    await withQueuesApart(async ({ deps, jobs, stopQueues, startQueues }) => {
      const webhookEvent = { eventId: 'evt_retried', checkoutId: '' };
      const hooked = {
        ...deps,
        provider: sandboxWith(suite.world.sandbox, {
          parseWebhook: async () => webhookEvent,
        }),
      };
      const [byPay, byWebhook, byReturn, byRequest] = [
        await suite.checkout(),
        await suite.checkout(),
        await suite.checkout(),
        await suite.checkout(),
      ];
      webhookEvent.checkoutId = byWebhook;
      const webhook = () =>
        handleProviderWebhook(hooked, { headers: {}, query: {}, rawBody: Buffer.from('{}') });

      // Each first try records the outcome and fails to queue its finish: the queues are away.
      await stopQueues();
      for (const checkoutId of [byPay, byWebhook, byReturn, byRequest]) {
        await suite.world.sandbox.settle(checkoutId, 'paid');
      }
      await expect(syncCheckout(deps, byPay)).rejects.toThrow();
      await expect(syncCheckout(deps, byRequest)).rejects.toThrow();
      await expect(webhook()).rejects.toThrow();
      await expect(syncCheckout(deps, byReturn)).rejects.toThrow();
      for (const checkoutId of [byPay, byWebhook, byReturn, byRequest]) {
        expect((await deps.store.get(checkoutId))?.state).toBe('paid');
      }
      await startQueues();

      // The retries: the customer's Pay again (the sandbox page's hint), the provider's webhook
      // again, the customer's return to the shop.
      await syncCheckout(deps, byPay);
      expect(await webhook()).toMatchObject({ kind: 'synced', state: 'paid' });
      const returned = await deps.store.get(byReturn);
      if (!returned) throw new Error('no record');
      expect((await syncFromProvider(deps, returned)).state).toBe('paid');
      // The platform, not told, asks for a checkout of the service again.
      const unheard = await deps.store.get(byRequest);
      if (!unheard) throw new Error('no record');
      expect(await requestCheckout(deps, unheard.serviceId)).toMatchObject({
        kind: 'already_paid',
      });

      for (const checkoutId of [byPay, byWebhook, byReturn, byRequest]) {
        const finish = await jobs.notificationQueue.getJob(`finish-${checkoutId}`);
        expect({ checkoutId, data: finish?.data }).toMatchObject({
          checkoutId,
          data: { checkoutId, kind: 'finish' },
        });
      }
      expect(await jobs.notificationQueue.getJobCountByTypes('waiting', 'delayed', 'active')).toBe(
        4,
      );
    });
  }, 60_000);

  it('is queued by the retried job that recorded a cancel: an expiry, a produce with nothing to charge', async () => {
    await withQueuesApart(async ({ deps, jobs, stopQueues, startQueues }) => {
      const expiring = await suite.checkout();
      // A service whose quote has nothing to charge: its checkout fails, and is cancelled.
      const free = 1025;
      suite.platform.simulator.state.override(free, { detail: { id: free, labour: null } });
      const answer = await requestCheckout(deps, free);
      if (answer.kind !== 'accepted') throw new Error(`checkout refused: ${answer.kind}`);
      suite.world.advance(3_600_000 + 1000);

      // Each first try records the outcome and fails to queue its cancel: the queues are away.
      await stopQueues();
      await expect(expireCheckout(deps, expiring)).rejects.toThrow();
      await expect(produceCheckout(deps, answer.checkoutId, answer.checkoutId)).rejects.toThrow();
      expect((await deps.store.get(expiring))?.state).toBe('expired');
      expect((await deps.store.get(answer.checkoutId))?.state).toBe('failed');
      await startQueues();

      // The jobs' retries find the checkouts closed, and queue their cancels.
      expect(await expireCheckout(deps, expiring)).toBe('closed');
      expect(await produceCheckout(deps, answer.checkoutId, answer.checkoutId)).toBe('closed');
      for (const checkoutId of [expiring, answer.checkoutId]) {
        const cancel = await jobs.notificationQueue.getJob(`cancel-${checkoutId}`);
        expect({ checkoutId, data: cancel?.data }).toMatchObject({
          checkoutId,
          data: { checkoutId, kind: 'cancel' },
        });
      }
    });
  }, 60_000);

  it('is not queued for a checkout that leaves nothing to report', async () => {
    await withQueuesApart(async ({ deps, jobs }) => {
      // A service the platform does not know: the checkout fails, and no cancel is to be sent.
      const answer = await requestCheckout(deps, 999_999);
      if (answer.kind !== 'accepted') throw new Error(`checkout refused: ${answer.kind}`);
      expect(await produceCheckout(deps, answer.checkoutId, answer.checkoutId)).toBe(
        'unknown_service',
      );
      const failed = await deps.store.get(answer.checkoutId);
      expect(failed?.state).toBe('failed');
      if (!failed) throw new Error('no record');

      // A hint about it later (the customer on the return page) queues nothing either.
      expect((await syncFromProvider(deps, failed)).state).toBe('failed');
      expect(await jobs.notificationQueue.getJobCountByTypes('waiting', 'delayed', 'active')).toBe(
        0,
      );
    });
  }, 60_000);

  it('is queued by the retry that finds the outcome settled, once, and never for another outcome', async () => {
    await withQueuesApart(async ({ deps, jobs, stopQueues, startQueues }) => {
      const checkoutId = await suite.checkout();
      const record = await deps.store.get(checkoutId);
      if (!record) throw new Error('no record');

      await stopQueues();
      await expect(recordOutcome(deps, record, 'paid', {})).rejects.toThrow();
      expect((await deps.store.get(checkoutId))?.state).toBe('paid');

      await startQueues();
      // The retry: already settled, and the finish is queued now.
      expect(await recordOutcome(deps, record, 'paid', {})).toBe(false);
      const finish = await jobs.notificationQueue.getJob(`finish-${checkoutId}`);
      expect(finish?.data).toMatchObject({ checkoutId, kind: 'finish' });
      // Again: the same job, not a second one; a late decline queues no cancel.
      expect(await recordOutcome(deps, record, 'paid', {})).toBe(false);
      expect(await recordOutcome(deps, record, 'declined', {})).toBe(false);
      expect(await jobs.notificationQueue.getJobCountByTypes('waiting', 'delayed', 'active')).toBe(
        1,
      );
      expect(await jobs.notificationQueue.getJob(`cancel-${checkoutId}`)).toBeUndefined();
    });
  }, 60_000);
});

/*
 * The paid outcome's payment record for the ERP and its finish are two writes too, the record
 * first: a failure between them leaves no finish to be acknowledged without its record, and what
 * queues the finish again (the retry, the reconciler) queues the record with it.
 */
describe('a paid outcome whose payment record failed to be queued', () => {
  const suite = useCaseSuite();

  it('queues no finish without its record; the retry queues both, and the record once', async () => {
    // The ERP's queue on a Redis of its own, stopped; the finish's on the world's, up.
    const apart = await startTestRedis({ private: true });
    const connection = createRedis(apart.url, 'producer', 'sync');
    connection.on('error', () => undefined);
    const sync = new BullmqSyncQueue(connection, suite.world.prefix, { maxAttempts: 3 });
    const deps = { ...suite.world.deps, paymentRecords: sync.forShop('default') };
    try {
      const checkoutId = await suite.checkout();
      const record = (await deps.store.get(checkoutId))!;
      await apart.stop();
      await expect(
        recordOutcome(deps, record, 'paid', { transactionId: 'pay_1' }),
      ).rejects.toThrow();
      expect((await deps.store.get(checkoutId))?.state).toBe('paid');
      // No finish was queued ahead of its record.
      expect(
        await suite.world.jobs.notificationQueue.getJob(`finish-${checkoutId}`),
      ).toBeUndefined();

      await apart.start();
      expect(await waitForRedis(connection, 10_000)).toBe(true);
      // The retry (the provider's webhook again) finds it paid: the record, then the finish.
      expect(await recordOutcome(deps, record, 'paid', { transactionId: 'pay_1' })).toBe(false);
      const id = recordIdOf(checkoutId, 'paid', 'pay_1');
      expect((await sync.queue.getJob(`payment-${id}`))?.data).toMatchObject({
        record: { event: 'paid', record_id: id, checkout_id: checkoutId },
      });
      expect(await suite.world.jobs.notificationQueue.getJob(`finish-${checkoutId}`)).toBeDefined();
      expect((await deps.store.get(checkoutId))?.paidRecordQueued).toBe(true);

      // Its job gone (trimmed after days of a platform outage), another hint queues no second.
      await (await sync.queue.getJob(`payment-${id}`))!.remove();
      expect(await recordOutcome(deps, record, 'paid', { transactionId: 'pay_1' })).toBe(false);
      expect(await sync.queue.getJob(`payment-${id}`)).toBeUndefined();
    } finally {
      await sync.queue.close();
      await closeRedis(connection);
      await apart.close();
    }
  }, 60_000);
});
