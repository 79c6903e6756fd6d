import { syncLedgerKey } from '../../../src/redis/keyspace';
import { closeRedis, createRedis, waitForRedis } from '../../../src/redis/redis';
import type { Job, Queue } from 'bullmq';
import { seededStatusCode } from '../../../src/simulator/seed-services';
import { FakeErp } from '../../support/fake-erp';
import type { RunningConnector, StartOptions } from '../../../src/main/compose';
import { eventually, startHarness, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';

const SECRET = 'erp-webhook-secret-0123456789';
const SERVICES = Array.from({ length: 16 }, (_, i) => 1001 + i);
const synced = (code: number) => code === 4 || code === 6;

/**
 * A shop's pass over its services (a scheduled pass is a job that queues one per shop: it ends
 * before they begin).
 */
const isShopPass = (job: Job): boolean =>
  job.name === 'pass' && (job.data as { shop?: string }).shop !== undefined;

/** The connector's sync queue. */
const syncQueueOf = (connector: RunningConnector): Queue => {
  if (!connector.syncQueue) throw new Error('the connector has no sync queue (ERP_SINK unset)');
  return connector.syncQueue.queue;
};

/**
 * A fake ERP, then the connector syncing into its webhook (ERP_SINK=webhook with the ERP's
 * secret unless `env` says otherwise); `prepare` sets the ERP up before the connector starts.
 */
async function startErpSync(options: {
  services: number;
  env?: Record<string, string>;
  path?: string;
  start?: StartOptions;
  prepare?: (erp: FakeErp) => void;
}): Promise<{ erp: FakeErp; h: Harness; stop: () => Promise<void> }> {
  const erp = new FakeErp(SECRET);
  await erp.start();
  options.prepare?.(erp);
  const h = await startHarness({
    simulator: { serviceCount: options.services },
    start: options.start,
    env: {
      ERP_SINK: 'webhook',
      ERP_WEBHOOK_URL: `${erp.url}${options.path ?? ''}`,
      ERP_WEBHOOK_SECRET: SECRET,
      ...options.env,
    },
  });
  return {
    erp,
    h,
    stop: async () => {
      await h.stop();
      await erp.stop();
    },
  };
}

describe('ERP sync into a webhook', () => {
  let erp: FakeErp;
  let h: Harness;
  let queue: Queue;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ erp, h, stop } = await startErpSync({
      services: SERVICES.length,
      path: '/connector/services',
      start: { produceBackoffMs: 50 },
      env: { SYNC_INTERVAL: '1s', SYNC_STATUSES: '4,6' },
    }));
    queue = syncQueueOf(h.connector);
  });
  afterAll(() => stop());

  /** Waits for `n` more completed passes than there were when called. */
  async function passes(n: number): Promise<void> {
    const done = async () => (await queue.getCompleted(0, 1000)).filter(isShopPass).length;
    const before = await done();
    await eventually(
      async () => ((await done()) >= before + n ? true : undefined),
      WAIT_DEADLINE_MS,
      `${n} passes`,
    );
  }

  it('sends every service of the synced statuses, each version once, signed, and links the ERP order back', async () => {
    const expected = SERVICES.filter((id) => synced(h.simulator.state.statusCode(id)));
    await eventually(
      () => (expected.every((id) => erp.accepted(id).length > 0) ? true : undefined),
      WAIT_DEADLINE_MS,
      'every service at the ERP',
    );
    await passes(2);
    const versions = erp.accepted().map((d) => d.deliveryId);
    expect(new Set(versions).size).toBe(versions.length);
    for (const id of expected) {
      const delivery = erp.accepted(id).at(-1);
      expect(delivery?.verified).toBe(true);
      expect(delivery?.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(delivery?.deliveryId).toMatch(new RegExp(`^${id}-[0-9a-f]{16}$`));
      // The service as the platform sends it, whole (its ERP code is linked after).
      const { internal_code: _code, ...sent } = delivery?.body as Record<string, unknown>;
      const { internal_code: _now, ...service } = JSON.parse(
        JSON.stringify(h.simulator.state.service(id)),
      ) as Record<string, unknown>;
      expect(sent).toEqual(service);
      await eventually(() =>
        h.simulator.state.internalCode(id) === `ERP-${id}` ? true : undefined,
      );
    }
    const others = SERVICES.filter(
      (id) => !synced(h.simulator.state.statusCode(id)) && !synced(seededStatusCode(id)),
    );
    for (const id of others) expect(erp.received.filter((d) => d.serviceId === id)).toHaveLength(0);
  });

  it('sends a service again when its status changes, and never deletes one that left', async () => {
    const quote = SERVICES.find((id) => h.simulator.state.statusCode(id) === 4) ?? 0;
    const approved = SERVICES.find((id) => h.simulator.state.statusCode(id) === 6) ?? 0;
    await eventually(() => (erp.accepted(quote).length > 0 ? true : undefined), WAIT_DEADLINE_MS);
    await idle();
    const before = erp.received.length;
    h.simulator.state.setStatus(quote, 6);
    h.simulator.state.setStatus(approved, 7);
    const count = erp.accepted(quote).length;
    const resent = await eventually(
      () => erp.accepted(quote)[count],
      WAIT_DEADLINE_MS,
      'the changed service',
    );
    expect((resent.body as { status: { code: number } }).status.code).toBe(6);
    await passes(2);
    // The one that moved to 7 left the synced statuses: nothing is sent about it.
    expect(erp.received.slice(before).map((d) => d.serviceId)).toEqual([quote]);
  });

  /** Waits until a pass has run and no delivery is waiting, running or due for a retry. */
  async function idle(): Promise<void> {
    await passes(1);
    await eventually(
      async () => {
        const pending = await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized']);
        return pending.some((job) => job.name.startsWith('deliver')) ? undefined : true;
      },
      WAIT_DEADLINE_MS,
      'no delivery pending',
    );
  }

  it('resends nothing after a restart', async () => {
    await idle();
    const before = erp.received.length;
    await h.connector.shutdown.run('restart');
    const again = await h.addConnector({});
    const againQueue = syncQueueOf(again);
    queue = againQueue;
    const done = async () => (await againQueue.getCompleted(0, 1000)).filter(isShopPass).length;
    const start = await done();
    await eventually(
      async () => ((await done()) >= start + 2 ? true : undefined),
      WAIT_DEADLINE_MS,
    );
    expect(erp.received.length).toBe(before);
  });

  it('retries while the ERP is down and delivers once it is back', async () => {
    const id = SERVICES.find((s) => h.simulator.state.statusCode(s) === 4) ?? 0;
    await eventually(() => (erp.accepted(id).length > 0 ? true : undefined), WAIT_DEADLINE_MS);
    await idle();
    const count = erp.accepted(id).length;
    erp.down = true;
    h.simulator.state.setStatus(id, 6);
    await eventually(
      () =>
        erp.received.filter((d) => d.serviceId === id && d.answered === 503).length >= 2
          ? true
          : undefined,
      WAIT_DEADLINE_MS,
      'failed attempts',
    );
    expect(erp.accepted(id)).toHaveLength(count);
    erp.down = false;
    const delivered = await eventually(
      () => erp.accepted(id)[count],
      WAIT_DEADLINE_MS,
      'the delivery after the outage',
    );
    expect((delivered.body as { status: { code: number } }).status.code).toBe(6);
    // The same lines as every other queue's, so one log query watches them all.
    expect(
      h.log
        .entries()
        .some(
          (e) => e.message === 'job failed, will retry' && e.queue === 'sync' && e.level === 'warn',
        ),
    ).toBe(true);
  });
});

describe('ERP sync with a wrong webhook secret', () => {
  it('is refused by the ERP, logs what to fix, and records nothing as delivered', async () => {
    const { erp, h, stop } = await startErpSync({
      services: 4,
      env: { ERP_WEBHOOK_SECRET: 'not-the-erp-secret-0123456789', SYNC_INTERVAL: '1s' },
    });
    try {
      await eventually(() => (erp.received.length >= 2 ? true : undefined), WAIT_DEADLINE_MS);
      expect(erp.accepted()).toHaveLength(0);
      expect(erp.received.every((d) => d.answered === 401 && !d.verified)).toBe(true);
      const refused = await eventually(() =>
        h.log
          .entries()
          .find((e) => /check ERP_WEBHOOK_URL and ERP_WEBHOOK_SECRET/.test(String(e.message))),
      );
      expect(refused.level).toBe('error');
      // Neither secret reaches a log line.
      expect(JSON.stringify(h.log.entries())).not.toContain('not-the-erp-secret');
      const redis = createRedis(h.redis.url, 'producer');
      await waitForRedis(redis, 5000);
      try {
        expect(await redis.hgetall(syncLedgerKey(h.prefix, 'default'))).toEqual({});
      } finally {
        await closeRedis(redis);
      }
    } finally {
      await stop();
    }
  });
});

describe('ERP sync of a paid service, without scheduled passes', () => {
  it('tells the ERP of a paid checkout at once', async () => {
    const { erp, h, stop } = await startErpSync({
      services: 4,
      start: { produceBackoffMs: 50 },
    });
    try {
      const id = 1001;
      expect(h.simulator.state.statusCode(id)).toBe(4);
      const requested = await h.simulator.requestCheckout(id);
      const checkoutId = (requested.body as { checkout_id: string }).checkout_id;
      const url = await eventually(() => h.simulator.checkoutUrlFor(id), WAIT_DEADLINE_MS);
      const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
      expect(paid.status).toBe(303);
      const delivery = await eventually(
        () => erp.accepted(id)[0],
        WAIT_DEADLINE_MS,
        'the paid service',
      );
      expect((delivery.body as { status: { code: number } }).status.code).toBe(6);
      // Only the paid service (and its payment record): no pass ran.
      const services = erp.received.filter((d) => d.event === 'service');
      expect(services.map((d) => d.serviceId)).toEqual([id]);
      await eventually(() => erp.payments(checkoutId, 'paid')[0], WAIT_DEADLINE_MS, 'its record');
      const queue = syncQueueOf(h.connector);
      const job = await queue.getJob(`sync-paid-${checkoutId}`);
      expect(job?.data).toMatchObject({ serviceId: id, cause: 'paid' });
      expect(await queue.getJobSchedulers()).toEqual([]);
    } finally {
      await stop();
    }
  });
});

describe('ERP sync: a service the ERP refuses', () => {
  it('does not hold back the others, lands alone in the failed set, and shows in the dashboard', async () => {
    const refused = 1030;
    const { erp, h, stop } = await startErpSync({
      services: 60,
      // Refused from the first pass on, which starts with the connector.
      prepare: (fake) => fake.refuse.add(refused),
      env: {
        SYNC_INTERVAL: '1s',
        SYNC_STATUSES: '4,6,7,9',
        DASHBOARD_USER: 'ops',
        DASHBOARD_PASSWORD: 'dashboard-password-123',
      },
    });
    try {
      const queue = syncQueueOf(h.connector);
      const others = h.simulator.state.serviceIds().filter((id) => id !== refused);
      await eventually(
        () => (others.every((id) => erp.accepted(id).length === 1) ? true : undefined),
        20_000,
        'every other service delivered',
      );
      const failed = await eventually(
        async () => (await queue.getFailed()).find((job) => job.name === 'deliver'),
        WAIT_DEADLINE_MS,
        'the refused service in the failed set',
      );
      expect(failed.data).toMatchObject({ serviceId: refused });
      expect(failed.id).toMatch(new RegExp(`^sync-${refused}-[0-9a-f]{16}$`));
      expect(failed.failedReason).toBe('ERP_REJECTED: ERP webhook answered 422.');
      // Later passes do not send it again while it waits in the failed set.
      const attempts = () => erp.received.filter((d) => d.serviceId === refused).length;
      const before = attempts();
      const passes = async () => (await queue.getCompleted(0, 1000)).filter(isShopPass).length;
      const start = await passes();
      await eventually(
        async () => ((await passes()) >= start + 3 ? true : undefined),
        WAIT_DEADLINE_MS,
        'three more passes',
      );
      expect(attempts()).toBeLessThanOrEqual(before + 1);
      // The dashboard shows the sync queue and its failure.
      const answer = await fetch(
        `${h.url}/admin/queues/api/queues?activeQueue=sync&status=failed`,
        {
          headers: {
            authorization: `Basic ${Buffer.from('ops:dashboard-password-123').toString('base64')}`,
          },
        },
      );
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as {
        queues: Array<{ name: string; counts: { failed: number }; jobs: Array<{ id: string }> }>;
      };
      const sync = body.queues.find((q) => q.name === 'sync');
      expect(sync?.counts.failed).toBe(1);
      expect(sync?.jobs.map((job) => job.id)).toEqual([failed.id]);
    } finally {
      await stop();
    }
  });
});

describe('ERP sync of a planned order: its payment with its service', () => {
  it('delivers the page and the balance due, then the service again once the balance is paid', async () => {
    const { erp, h, stop } = await startErpSync({
      services: 4,
      start: { produceBackoffMs: 50 },
      // No scheduled pass: the deposit's finish sends the service, and the balance paid sends it
      // again at once.
      env: {
        SHOP_PLAN_DEPOSIT_PERCENT: '40',
        SHOP_PLAN_BALANCE_DUE_DAYS: '15',
      },
    });
    try {
      const id = 1002;
      await h.simulator.requestCheckout(id);
      const page = await eventually(() => h.simulator.checkoutUrlFor(id), WAIT_DEADLINE_MS);
      /** The customer pays `part` by card at the sandbox, from the plan's page. */
      const pay = async (part: string) => {
        const started = await fetch(`${page}/start`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `part=${part}&method=card`,
          redirect: 'manual',
        });
        expect(started.status).toBe(303);
        const sandbox = new URL(started.headers.get('location') ?? '', page).toString();
        expect((await fetch(`${sandbox}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(
          303,
        );
      };
      const payment = (delivery: { body: unknown }) =>
        (delivery.body as { connector_payment?: Record<string, unknown> }).connector_payment;
      await pay('deposit');
      const first = await eventually(() => erp.accepted(id)[0], WAIT_DEADLINE_MS, 'the service');
      const order = payment(first)?.order_total as number;
      expect(payment(first)).toMatchObject({
        payment_page: page,
        state: 'balance_due',
        currency: 'BRL',
        paid: Math.round(order * 0.4),
        balance_due: {
          amount_minor: order - Math.round(order * 0.4),
          due_date: expect.any(String),
        },
      });
      // The platform's own fields are as it sent them.
      expect((first.body as { id: number }).id).toBe(id);
      await pay('balance');
      const second = await eventually(
        () => erp.accepted(id).find((d) => payment(d)?.state === 'paid'),
        WAIT_DEADLINE_MS,
        'the service again, its balance paid',
      );
      expect(payment(second)).toMatchObject({ paid: order, balance_due: null });
    } finally {
      await stop();
    }
  });
});
