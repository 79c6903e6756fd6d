import { randomBytes } from 'node:crypto';
import { watchPaidPix, WATCH_READS_PER_PASS } from '../../../src/checkout/pix-watch';
import { reconcileEveryShop } from '../../../src/checkout/reconcile-every-shop';
import { txidOf } from '../../../src/payments/pix/pix-api';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { closeRedis, createRedis, waitForRedis } from '../../../src/redis/redis';
import { runCliCaptured } from '../../support/cli';
import { FakeErp } from '../../support/fake-erp';
import { eventually, settled, WAIT_DEADLINE_MS } from '../../support/harness';
import { PixWorld } from '../../support/pix-world';
import { providerSuite } from '../../support/provider-suite';

/*
 * The MED (Mecanismo Especial de Devolução) on a Pix the connector reported paid: the payer's PSP
 * contests it and the shop's bank returns the money, a devolução whose `natureza` is MED_* (the
 * API Pix's DevolucaoNatureza). An incident of its own kind, `med_return`: counted, logged at
 * error, in `checkout status` with its natureza, a payment record to the ERP; never a `refund`,
 * never a second finish or a cancel. A devolução the shop asked for (ORIGINAL) is a refund as
 * before.
 */
const SECRET = `erp-${randomBytes(12).toString('hex')}`;
const DAY_MS = 86_400_000;
const erp = new FakeErp(SECRET);
beforeAll(() => erp.start());
afterAll(() => erp.stop());

const suite = providerSuite(() => new PixWorld(), {
  fakeEnv: (fake) => ({
    ...fake.env(),
    ERP_SINK: 'webhook',
    ERP_WEBHOOK_URL: erp.url,
    ERP_WEBHOOK_SECRET: SECRET,
  }),
});

interface Told {
  incidents: Array<{ kind: string; natureza?: string; note?: string; transaction_id?: string }>;
  steps: Array<{ step: string; note?: string }>;
}

/** A series' value at /metrics (`name` with its labels, as written there), 0 when absent. */
const metric = async (series: string): Promise<number> => {
  const text = await (await fetch(`${suite.h.url}/metrics`)).text();
  const at = text.split('\n').find((line) => line.startsWith(`${series} `));
  return Number(at?.slice(series.length + 1) ?? 0);
};
const counted = (kind: string) => metric(`connector_payment_incidents_total{kind="${kind}"}`);

/** A client of the suite's Redis, ready. */
async function openRedis() {
  const redis = createRedis(suite.h.redis.url, 'producer', 'pix-watch-test');
  await waitForRedis(redis, WAIT_DEADLINE_MS);
  return redis;
}

/** A Pix checkout of `serviceId` paid, its finish delivered and its paid record at the ERP. */
async function paidPix(serviceId: number) {
  const { checkoutId } = await suite.open(serviceId);
  const paid = suite.fake.pix.pay(txidOf(checkoutId));
  await suite.fake.pix.deliverWebhook(paid);
  await eventually(
    () => suite.accepted('finish-checkout', serviceId)[0],
    WAIT_DEADLINE_MS,
    'finish',
  );
  await eventually(() => erp.payments(checkoutId, 'paid')[0], WAIT_DEADLINE_MS, 'paid record');
  return { checkoutId, endToEndId: paid.endToEndId };
}

async function status(serviceId: number): Promise<{ told: Told; text: string }> {
  const env = { REDIS_URL: suite.h.redis.url, QUEUE_PREFIX: suite.h.prefix };
  const json = await runCliCaptured(
    ['checkout', 'status', String(serviceId), '--format', 'json'],
    env,
  );
  const text = await runCliCaptured(['checkout', 'status', String(serviceId)], env);
  expect(json).toMatchObject({ code: 0 });
  expect(text).toMatchObject({ code: 0 });
  return { told: (JSON.parse(json.stdout) as Told[])[0]!, text: text.stdout };
}

describe('a MED return of a Pix reported paid (the API Pix, against a fake PSP)', () => {
  it('is a med_return incident with its natureza: counted, logged, told, sent to the ERP; no second outcome', async () => {
    const { pix } = suite.fake;
    const before = { med: await counted('med_return'), refund: await counted('refund') };
    const { checkoutId, endToEndId } = await paidPix(1001);

    // The payer's bank contests the Pix (fraud): the shop's bank blocks and returns it all.
    const med = pix.medReturn(endToEndId, 'MED_FRAUDE');
    pix.settleDevolucao(endToEndId, med.id, 'DEVOLVIDO');
    const answer = await pix.deliverWebhook(pix.receivedPix(endToEndId));
    expect(answer.body).toMatchObject({ checkout_id: checkoutId, incident: 'med_return' });
    // The same news again (the bank retrying its call): one incident still.
    await pix.deliverWebhook(pix.receivedPix(endToEndId));

    const record = await suite.h.connector.deps.store.get(checkoutId);
    expect(record?.incidents).toEqual([
      expect.objectContaining({
        kind: 'med_return',
        transactionId: endToEndId,
        natureza: 'MED_FRAUDE',
        note: expect.stringContaining(med.id),
      }),
    ]);
    expect(await counted('med_return')).toBe(before.med + 1);
    expect(await counted('refund')).toBe(before.refund);
    const logged = suite.h.log
      .entries()
      .filter((entry) => entry.kind === 'med_return' && entry.checkoutId === checkoutId);
    expect(logged).toEqual([expect.objectContaining({ level: 'error', natureza: 'MED_FRAUDE' })]);

    const sent = await eventually(
      () => erp.payments(checkoutId, 'med_return')[0],
      WAIT_DEADLINE_MS,
      'the MED record at the ERP',
    );
    expect(sent.body).toMatchObject({
      event: 'med_return',
      checkout_id: checkoutId,
      provider: 'pix',
      method: 'pix',
      provider_ids: { pix_e2e: endToEndId },
      note: expect.stringContaining('MED_FRAUDE'),
    });

    const { told, text } = await status(1001);
    expect(told.incidents).toEqual([
      expect.objectContaining({ kind: 'med_return', natureza: 'MED_FRAUDE' }),
    ]);
    expect(text).toContain('MED_FRAUDE');

    await settled(suite.h.connector.jobs);
    expect(erp.incidents(checkoutId)).toHaveLength(1);
    expect(suite.accepted('finish-checkout', 1001)).toHaveLength(1);
    expect(suite.accepted('cancel-checkout', 1001)).toEqual([]);
    expect((await suite.h.connector.deps.store.get(checkoutId))?.state).toBe('reported');
  });

  it('is told while the bank still holds the money (EM_PROCESSAMENTO), and once', async () => {
    const { pix } = suite.fake;
    const { checkoutId, endToEndId } = await paidPix(1002);
    const med = pix.medReturn(endToEndId, 'MED_OPERACIONAL');
    const first = await pix.deliverWebhook(pix.receivedPix(endToEndId));
    expect(first.body).toMatchObject({ incident: 'med_return' });
    pix.settleDevolucao(endToEndId, med.id, 'DEVOLVIDO');
    await pix.deliverWebhook(pix.receivedPix(endToEndId));
    const record = await suite.h.connector.deps.store.get(checkoutId);
    expect(record?.incidents?.map((i) => [i.kind, i.natureza])).toEqual([
      ['med_return', 'MED_OPERACIONAL'],
    ]);
    await settled(suite.h.connector.jobs);
    expect(suite.accepted('cancel-checkout', 1002)).toEqual([]);
  });

  it('40 days after the payment, its webhook lost, the watch sees it (a moved clock)', async () => {
    const { pix } = suite.fake;
    const { h } = suite;
    const { checkoutId, endToEndId } = await paidPix(1004);
    // In the shop's watch from the write that recorded it paid: first read a day later.
    const redis = await openRedis();
    try {
      const watch = checkoutKeys(h.prefix, 'default').watch;
      const paidAt = Date.parse((await h.connector.deps.store.get(checkoutId))!.reachedAt!.paid!);
      expect(Number(await redis.zscore(watch, checkoutId))).toBe(paidAt + DAY_MS);
      expect(await metric('connector_pix_watched_checkouts')).toBe(await redis.zcard(watch));

      // Day 40: the payer's bank contested it; the shop's bank returned it and its call was lost.
      const med = pix.medReturn(endToEndId, 'MED_FRAUDE');
      pix.settleDevolucao(endToEndId, med.id, 'DEVOLVIDO');
      const day40 = new Date(paidAt + 40 * DAY_MS);
      const deps = { ...h.connector.deps, clock: () => day40 };
      // The reconciler's pass reads the shop's watch, after its line.
      const pass = await reconcileEveryShop(
        { ids: () => ['default'], byId: async () => ({ deps }) },
        { intervalMs: 60_000, inShopContext: (_, run) => run(), countUnreadable: () => undefined },
        { next: 0 },
      );
      expect(pass.watched).toBeGreaterThanOrEqual(1);
      expect(pass.watchErrors).toBe(0);
      const record = await h.connector.deps.store.get(checkoutId);
      expect(record?.incidents).toEqual([
        expect.objectContaining({
          kind: 'med_return',
          natureza: 'MED_FRAUDE',
          at: day40.toISOString(),
        }),
      ]);
      // Past 14 days: read again a week later; day 92 ends the watch.
      expect(Number(await redis.zscore(watch, checkoutId))).toBe(day40.getTime() + 7 * DAY_MS);
      const day92 = new Date(paidAt + 92 * DAY_MS);
      await watchPaidPix({ ...h.connector.deps, clock: () => day92 }, { watchDays: 92 });
      expect(await redis.zscore(watch, checkoutId)).toBeNull();
    } finally {
      await closeRedis(redis);
    }
    await settled(h.connector.jobs);
    expect(suite.accepted('finish-checkout', 1004)).toHaveLength(1);
    expect(suite.accepted('cancel-checkout', 1004)).toEqual([]);
  });

  it(`reads a bounded part of a shop's watch in a pass (${WATCH_READS_PER_PASS} by default), the most overdue first`, async () => {
    const { h } = suite;
    await paidPix(1005);
    const { checkoutId } = await paidPix(1006);
    const paidAt = Date.parse((await h.connector.deps.store.get(checkoutId))!.reachedAt!.paid!);
    const now = new Date(paidAt + 2 * DAY_MS);
    const reads: string[] = [];
    const { provider } = h.connector.deps;
    const deps = {
      ...h.connector.deps,
      clock: () => now,
      provider: {
        ...provider,
        getStatus: (ref: { providerRef: string; checkoutId: string }) => {
          reads.push(ref.checkoutId);
          return provider.getStatus(ref);
        },
      },
    };
    const redis = await openRedis();
    try {
      const watch = checkoutKeys(h.prefix, 'default').watch;
      const due = await redis.zrangebyscore(watch, '-inf', now.getTime());
      expect(due.length).toBeGreaterThanOrEqual(2);
      expect(await watchPaidPix(deps, { watchDays: 92, limit: 1 })).toEqual({
        watched: 1,
        watchErrors: 0,
      });
      expect(reads).toEqual([due[0]]);
      await watchPaidPix(deps, { watchDays: 92, limit: 1 });
      expect(reads).toEqual([due[0], due[1]]);
    } finally {
      await closeRedis(redis);
    }
  });

  it("a failed read keeps its schedule; none starts out of time; another provider's Pix leaves", async () => {
    const { h } = suite;
    const { checkoutId } = await paidPix(1007);
    const paidAt = Date.parse((await h.connector.deps.store.get(checkoutId))!.reachedAt!.paid!);
    const now = new Date(paidAt + 3 * DAY_MS);
    const { provider } = h.connector.deps;
    const at = (changes: object) => ({ ...h.connector.deps, clock: () => now, ...changes });
    const redis = await openRedis();
    try {
      const watch = checkoutKeys(h.prefix, 'default').watch;
      const score = async () => redis.zscore(watch, checkoutId);
      // Only this one due: the others of the file are moved a year ahead.
      const others = (await redis.zrange(watch, 0, -1)).filter((id) => id !== checkoutId);
      for (const id of others) await redis.zadd(watch, 'XX', now.getTime() + 365 * DAY_MS, id);

      // Out of time: nothing read, nothing moved.
      const late = await watchPaidPix(at({}), { watchDays: 92, inTime: () => false });
      expect(late).toEqual({ watched: 0, watchErrors: 0 });
      expect(Number(await score())).toBe(paidAt + DAY_MS);

      // The bank away: the read fails, and the Pix keeps its daily read (not an hourly one).
      const away = {
        ...provider,
        getStatus: () => Promise.reject(new Error('PSP away')),
      };
      expect(await watchPaidPix(at({ provider: away }), { watchDays: 92 })).toEqual({
        watched: 1,
        watchErrors: 1,
      });
      expect(Number(await score())).toBe(now.getTime() + DAY_MS);

      // The shop on another provider now: its Pix is not that provider's to read, and leaves.
      const later = new Date(now.getTime() + DAY_MS);
      const other = { ...provider, name: 'stripe' };
      await watchPaidPix(at({ provider: other, clock: () => later }), { watchDays: 92 });
      expect(await score()).toBeNull();
    } finally {
      await closeRedis(redis);
    }
  });

  it('a devolução the shop asked (ORIGINAL) is a refund, as before', async () => {
    const { pix } = suite.fake;
    const { checkoutId, endToEndId } = await paidPix(1003);
    // The shop returns the whole Pix from its bank's app.
    const asked = pix.receiverReturn(endToEndId);
    pix.settleDevolucao(endToEndId, asked.id, 'DEVOLVIDO');
    const answer = await pix.deliverWebhook(pix.receivedPix(endToEndId));
    expect(answer.body).toMatchObject({ checkout_id: checkoutId, incident: 'refund' });
    const record = await suite.h.connector.deps.store.get(checkoutId);
    expect(record?.incidents?.map((i) => [i.kind, i.natureza])).toEqual([['refund', undefined]]);
  });
});
