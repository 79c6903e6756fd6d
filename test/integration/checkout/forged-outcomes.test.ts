import { newCheckoutId } from '../../../src/checkout/checkout-record';
import {
  eventually,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';

/**
 * A notification job is a request to tell the platform what a checkout's record says, nothing
 * more: whoever can add jobs (the dashboard's operators, anything with Redis access) cannot make
 * the platform believe a service was paid.
 */
describe('forged notification jobs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  const failedReason = async (jobId: string) =>
    eventually(
      async () => {
        const job = await h.connector.jobs.notificationQueue.getJob(jobId);
        return job && (await job.isFailed()) ? job.failedReason : undefined;
      },
      WAIT_DEADLINE_MS,
      `job ${jobId} to fail`,
    );

  it('refuses a finish for a checkout that does not exist', async () => {
    const checkoutId = newCheckoutId();
    // What an operator could type in the dashboard: a finish for a service never paid.
    await h.connector.jobs.notificationQueue.add(
      'finish',
      { checkoutId, kind: 'finish', serviceId: 1001, outcome: 'paid', transactionId: 'forged' },
      { jobId: `finish-${checkoutId}` },
    );
    expect(await failedReason(`finish-${checkoutId}`)).toContain('no such checkout');
    await settled(h.connector.jobs);
    expect(h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1001)).toEqual([]);
  });

  it('refuses a finish for a checkout whose record holds no payment', async () => {
    const answer = await h.simulator.requestCheckout(1002);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    await eventually(() => h.simulator.checkoutUrlFor(1002), WAIT_DEADLINE_MS, 'url');
    await h.connector.jobs.notificationQueue.add(
      'finish',
      { checkoutId, kind: 'finish' },
      { jobId: `finish-forged-${checkoutId}` },
    );
    expect(await failedReason(`finish-forged-${checkoutId}`)).toContain('has no outcome');
    expect((await h.connector.deps.store.get(checkoutId))?.state).toBe('url_sent');
    expect(h.simulator.accepted('finish-checkout').filter((c) => c.serviceId === 1002)).toEqual([]);
  });

  it('delivers what the record holds, whatever else the job data says', async () => {
    const answer = await h.simulator.requestCheckout(1003);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const url = await eventually(() => h.simulator.checkoutUrlFor(1003), WAIT_DEADLINE_MS, 'url');
    // Hold the platform's finish for a moment so a forged job can race the real one.
    h.simulator.faults.add({ match: '/payment/finish-checkout', status: 503, times: 1 });
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    await h.connector.jobs.notificationQueue.add('cancel', {
      checkoutId,
      kind: 'cancel',
      serviceId: 9999,
      reason: 'forged',
    });
    const finish = await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1003),
      WAIT_DEADLINE_MS,
      'finish',
    );
    const record = await h.connector.deps.store.get(checkoutId);
    expect(finish.body).toEqual({ service_id: 1003, transaction_id: record?.transactionId });
    await settled(h.connector.jobs);
    expect(h.simulator.accepted('cancel-checkout').filter((c) => c.serviceId === 1003)).toEqual([]);
  });
});
