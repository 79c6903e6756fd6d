import {
  MAX_LOOK_WAIT_MS,
  nextLookDelayMs,
  reconcileCheckouts,
} from '../../../src/checkout/reconcile-checkouts';
import { createMetrics, observeReconciler } from '../../../src/infra/metrics';
import { sandboxKey } from '../../../src/payments/sandbox/sandbox-keys';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { useCaseSuite, type UseCaseWorld } from '../../support/checkout-deps';

const INTERVAL_MS = 60_000;
const pass = (w: UseCaseWorld, budgetMs = 10_000) =>
  reconcileCheckouts(w.deps, { intervalMs: INTERVAL_MS, budgetMs });

describe('the reconciler, branch by branch', () => {
  const suite = useCaseSuite({ reconcileIntervalMs: INTERVAL_MS });
  const checkout = (produced?: boolean) => suite.checkout(produced);
  const stateOf = async (id: string) => (await suite.world.deps.store.get(id))?.state;
  const jobState = async (queue: 'checkoutQueue' | 'notificationQueue', jobId: string) =>
    (await suite.world.jobs[queue].getJob(jobId))?.getState();

  it('leaves a checkout alone until it is due, then looks at it once per pass', async () => {
    const w = suite.world;
    const id = await checkout();
    expect(await pass(w)).toMatchObject({ looked: 0 });
    w.advance(INTERVAL_MS / 2);
    expect(await pass(w)).toMatchObject({ looked: 1, synced: 1, backlog: 0 });
    expect(await pass(w)).toMatchObject({ looked: 0 });
    expect(await stateOf(id)).toBe('url_sent');
  });

  it("schedules a checkout's expiry at its first look, off the way to its URL", async () => {
    const w = suite.world;
    const id = await checkout();
    const record = await w.deps.store.get(id);
    const expiryJob = `expire-${id}-${Date.parse(String(record?.expiresAt))}`;
    // An hour away, long after the first look: the request left it to the reconciler.
    expect(await w.jobs.checkoutQueue.getJob(expiryJob)).toBeUndefined();
    w.advance(INTERVAL_MS / 2);
    expect(await pass(w)).toMatchObject({ looked: 1 });
    // (Delayed until the expiry in real time; this test's clock is days behind, so it waits.)
    expect(['delayed', 'waiting']).toContain(await jobState('checkoutQueue', expiryJob));
    // Later looks leave the one job as it is.
    w.advance(INTERVAL_MS);
    await pass(w);
    const jobs = await w.jobs.checkoutQueue.getJobs(['delayed', 'waiting']);
    expect(jobs.filter((job) => job.name === 'expire').map((job) => job.id)).toEqual([expiryJob]);
  });

  it('reads an open checkout from the provider: processing, then paid', async () => {
    const w = suite.world;
    const id = await checkout();
    w.advance(INTERVAL_MS / 2);
    await w.sandbox.settle(id, 'processing');
    expect(await pass(w)).toMatchObject({ synced: 1 });
    expect(await stateOf(id)).toBe('processing');
    await w.sandbox.settle(id, 'paid');
    w.advance(INTERVAL_MS);
    expect(await pass(w)).toMatchObject({ synced: 1 });
    expect(await w.deps.store.get(id)).toMatchObject({
      state: 'paid',
      transactionId: expect.stringMatching(/^sbx_pay_/),
    });
    expect(await jobState('notificationQueue', `finish-${id}`)).toBe('waiting');
  });

  it('expires an open checkout past its expiry, which the platform learns as a cancel', async () => {
    const w = suite.world;
    const id = await checkout();
    w.advance(3_600_000 + 1);
    expect(await pass(w)).toMatchObject({ looked: 1, expired: 1 });
    expect(await stateOf(id)).toBe('expired');
    const cancel = await w.jobs.notificationQueue.getJob(`cancel-${id}`);
    expect(cancel?.data).toEqual({ shop: 'default', checkoutId: id, kind: 'cancel' });
    expect(await w.deps.store.get(id)).toMatchObject({ reason: 'checkout expired' });
  });

  it('produces again a checkout that never got its URL', async () => {
    const w = suite.world;
    const id = await checkout(false);
    // The produce job was lost with a Redis write.
    await w.jobs.checkoutQueue.obliterate({ force: true });
    w.advance(INTERVAL_MS / 2);
    expect(await pass(w)).toMatchObject({ reproduced: 1 });
    expect(await jobState('checkoutQueue', `produce-${id}`)).toBe('waiting');
  });

  it('notifies again an outcome whose job was lost, and only once however often it looks', async () => {
    const w = suite.world;
    const id = await checkout();
    await w.deps.store.transition(
      id,
      'paid',
      { transactionId: 'tx-lost' },
      w.now,
      w.deps.schedule.firstLookAt(w.now),
    );
    w.advance(INTERVAL_MS / 2);
    expect(await pass(w)).toMatchObject({ renotified: 1 });
    w.advance(INTERVAL_MS);
    expect(await pass(w)).toMatchObject({ renotified: 1 });
    const jobs = await w.jobs.notificationQueue.getJobs(['waiting']);
    expect(jobs.map((job) => job.id)).toEqual([`finish-${id}`]);
    // The job names the checkout; the finish says what its record holds (transaction tx-lost).
    expect(jobs[0]?.data).toEqual({ shop: 'default', checkoutId: id, kind: 'finish' });
  });

  it('retires a line entry whose record is gone, and one already reported', async () => {
    const w = suite.world;
    const gone = await checkout();
    const reported = await checkout();
    const keys = checkoutKeys(w.prefix, 'default');
    await w.redis.del(keys.record(gone));
    await w.deps.store.transition(reported, 'paid', {}, w.now, w.deps.schedule.firstLookAt(w.now));
    await w.deps.store.transition(
      reported,
      'reported',
      {},
      w.now,
      w.deps.schedule.firstLookAt(w.now),
    );
    // Data written before reporting took checkouts out of line.
    await w.redis.zadd(keys.due, w.now.getTime(), reported);
    w.advance(INTERVAL_MS / 2);
    expect(await pass(w)).toMatchObject({ retired: 2 });
    expect(await w.redis.zcard(keys.due)).toBe(0);
  });

  it('counts a look that fails, and moves on to the next checkout', async () => {
    const w = suite.world;
    const broken = await checkout();
    const fine = await checkout();
    await w.redis.hset(sandboxKey(w.prefix, 'default', broken), 'data', 'not json');
    w.advance(INTERVAL_MS / 2);
    expect(await pass(w)).toMatchObject({ looked: 2, synced: 1, errors: 1, backlog: 0 });
    expect(await stateOf(fine)).toBe('url_sent');
    const warning = w.log
      .entries()
      .find((e) => e.message === 'reconciler could not look at a checkout');
    expect(warning).toMatchObject({ checkoutId: broken });
  });

  it('parks and reports once a record it cannot read, and heals the rest of its batch', async () => {
    const w = suite.world;
    const badLines = await checkout();
    const badState = await checkout();
    const paid = await checkout();
    const keys = checkoutKeys(w.prefix, 'default');
    // Real bad data in Redis: a field that is not JSON, a state no version ever wrote.
    await w.redis.hset(keys.record(badLines), 'lines', '[{"label": "Corte", ');
    await w.redis.hset(keys.record(badState), 'state', 'half-paid');
    // The most overdue of the line, so the first batch of every pass holds them.
    await w.redis.zadd(keys.due, 0, badLines, 1, badState);
    await w.sandbox.settle(paid, 'paid');
    w.advance(INTERVAL_MS / 2);
    expect(await pass(w)).toMatchObject({ looked: 1, synced: 1, unreadable: 2, errors: 0 });
    expect(await stateOf(paid)).toBe('paid');
    const reported = w.log.entries().filter((e) => e.message === 'unreadable checkout record');
    expect(reported.map((e) => [e.level, e.checkoutId, e.problem])).toEqual(
      expect.arrayContaining([
        ['error', badLines, 'lines: not JSON'],
        ['error', badState, 'state: half-paid is no checkout state'],
      ]),
    );
    // Parked out of the line, where `checkout status --unreadable` shows them: reported once,
    // not again on every pass however long it stays.
    for (const id of [badLines, badState]) {
      expect(await w.redis.zscore(keys.due, id)).toBeNull();
      expect(Number(await w.redis.zscore(keys.unreadable, id))).toBe(w.now.getTime());
    }
    expect(
      (await w.deps.line.unreadableCheckouts(10)).map((p) => [p.checkoutId, p.problem]),
    ).toEqual(
      expect.arrayContaining([
        [badLines, 'lines: not JSON'],
        [badState, 'state: half-paid is no checkout state'],
      ]),
    );
    w.advance(MAX_LOOK_WAIT_MS + INTERVAL_MS);
    expect(await pass(w)).toMatchObject({ unreadable: 0 });
    expect(w.log.entries().filter((e) => e.message === 'unreadable checkout record')).toHaveLength(
      2,
    );
    // Mended by a person: listed as reading now; deleted: gone from the list.
    await w.redis.hset(keys.record(badState), 'state', 'url_sent');
    await w.redis.del(keys.record(badLines));
    expect(await w.deps.line.unreadableCheckouts(10)).toEqual([
      { checkoutId: badState, parkedAt: expect.any(Date), problem: undefined },
    ]);
    expect(await w.redis.zscore(keys.unreadable, badLines)).toBeNull();
  });

  it('fails the pass when Redis refuses a batch, and leaves the line for the next pass', async () => {
    const w = suite.world;
    const id = await checkout();
    const keys = checkoutKeys(w.prefix, 'default');
    const fields = await w.redis.hgetall(keys.record(id));
    // The record's key holds a string: reading the batch fails with WRONGTYPE.
    await w.redis.del(keys.record(id));
    await w.redis.set(keys.record(id), 'not a hash');
    w.advance(INTERVAL_MS / 2);
    const dueAt = await w.redis.zscore(keys.due, id);
    await expect(pass(w)).rejects.toThrow(/WRONGTYPE/);
    expect(await w.redis.zscore(keys.due, id)).toBe(dueAt);
    await w.redis.del(keys.record(id));
    await w.redis.hset(keys.record(id), fields);
    expect(await pass(w)).toMatchObject({ looked: 1, synced: 1, errors: 0 });
  });

  it('stops at its time budget and counts what is left, which the metrics show', async () => {
    const w = suite.world;
    await checkout();
    await checkout();
    w.advance(INTERVAL_MS);
    expect(await pass(w, 0)).toMatchObject({ looked: 0, backlog: 2 });
    const metrics = createMetrics();
    observeReconciler(
      metrics,
      () => w.deps.line.reconcileBacklog(w.now),
      () => w.now.getTime(),
    );
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^connector_reconcile_due_checkouts 2$/m);
    expect(text).toMatch(/^connector_reconcile_oldest_due_seconds 30$/m);
    expect(await pass(w)).toMatchObject({ looked: 2, backlog: 0 });
    const after = await metrics.registry.metrics();
    expect(after).toMatch(/^connector_reconcile_due_checkouts 0$/m);
    expect(after).toMatch(/^connector_reconcile_oldest_due_seconds 0$/m);
  });

  it('never looks at a checkout whose delivery failed for good', async () => {
    const w = suite.world;
    const id = await checkout();
    await w.deps.store.transition(id, 'paid', {}, w.now, w.deps.schedule.firstLookAt(w.now));
    await w.deps.line.parkFailedDelivery(id, w.now);
    w.advance(INTERVAL_MS);
    expect(await pass(w)).toMatchObject({ looked: 0, backlog: 0 });
    // A retry that gets through reports it and takes it off the parked set too.
    await w.deps.store.transition(id, 'reported', {}, w.now, w.deps.schedule.firstLookAt(w.now));
    expect(await w.redis.zcard(checkoutKeys(w.prefix, 'default').parked)).toBe(0);
  });

  it('asks less often about a checkout the longer it stays silent', () => {
    expect(nextLookDelayMs(0, INTERVAL_MS, MAX_LOOK_WAIT_MS)).toBe(INTERVAL_MS);
    expect(nextLookDelayMs(10 * 60_000, INTERVAL_MS, MAX_LOOK_WAIT_MS)).toBe(5 * 60_000);
    expect(nextLookDelayMs(10 * 3_600_000, INTERVAL_MS, MAX_LOOK_WAIT_MS)).toBe(MAX_LOOK_WAIT_MS);
  });
});
