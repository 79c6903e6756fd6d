import { newCheckoutId } from '../../../src/checkout/checkout-record';
import { randomBytes } from 'node:crypto';
import { deliverNotification } from '../../../src/delivery/deliver-notification';
import { judgeDelivery, type DeliveryVerdict } from '../../../src/delivery/delivery-policy';
import { closeRedis, createRedis } from '../../../src/redis/redis';
import { reconcileSchedule } from '../../../src/checkout/reconcile-schedule';
import { redisCheckoutPorts } from '../../../src/store/redis-checkout-ports';
import { captureLog } from '../../support/log-capture';
import { PlatformClient } from '../../../src/platform/platform-client';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { startPlatform } from '../../support/platform';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/** The answer table of docs/delivery.md, row by row, over real HTTP against the simulator. */
describe('delivery answer table', () => {
  let redis: TestRedis;
  let connection: ReturnType<typeof createRedis>;
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  let ports: ReturnType<typeof redisCheckoutPorts>;
  const schedule = reconcileSchedule(60_000);
  // A service of its own per attempt: one paid checkout each.
  let nextService = 0;

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = createRedis(redis.url, 'worker', 'answers');
    ports = redisCheckoutPorts(connection, `t${randomBytes(4).toString('hex')}`, 'default');
    // A loaded machine (CI runs the suite twice side by side) may take a second to answer: only
    // the hanging row below waits for its timeout, with a client of its own.
    platform = await startPlatform({ serviceCount: 1000 }, { timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await platform.simulator.stop();
    await closeRedis(connection);
    await redis.close();
  });
  afterEach(() => platform.simulator.faults.clear());

  async function attempt(client = platform.client): Promise<DeliveryVerdict> {
    // A paid checkout for the notification to be about (the job names only the checkout).
    const checkoutId = newCheckoutId();
    const now = new Date();
    const lookAt = schedule.firstLookAt(now);
    await ports.store.openForService({
      checkoutId,
      serviceId: 1001 + nextService++,
      provider: 'sandbox',
      now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      lookAt,
    });
    await ports.store.transition(checkoutId, 'paid', { transactionId: 'tx-1' }, now, lookAt);
    const deps = {
      platform: client,
      store: ports.store,
      line: ports.line,
      schedule,
      clock: () => new Date(),
      log: captureLog().logger,
    };
    try {
      await deliverNotification(deps, { checkoutId, kind: 'finish' });
      return judgeDelivery();
    } catch (error) {
      return judgeDelivery(error);
    }
  }

  // Every row has four entries: jest takes a test function with more parameters than the row
  // has for a callback-style test.
  const rows: Array<[string, DeliveryVerdict['action'], number, boolean]> = [
    ['200', 'delivered', 200, false],
    ['201', 'delivered', 201, false],
    ['204', 'delivered', 204, false],
    ['301', 'retry', 301, true],
    ['302', 'retry', 302, true],
    ['400', 'give_up', 400, false],
    ['401', 'retry', 401, true],
    ['403', 'retry', 403, true],
    ['404', 'retry', 404, true],
    ['408', 'retry', 408, false],
    ['409', 'give_up', 409, false],
    ['422', 'give_up', 422, false],
    ['425', 'retry', 425, false],
    ['429', 'retry', 429, false],
    ['500', 'retry', 500, false],
    ['502', 'retry', 502, false],
    ['503', 'retry', 503, false],
  ];

  it.each(rows)('%s -> %s', async (_name, action, status, alert) => {
    platform.simulator.faults.add({ match: '/payment/finish-checkout', status });
    const verdict = await attempt();
    expect(verdict.action).toBe(action);
    if (verdict.action === 'retry') {
      expect(verdict.alert).toBe(alert);
      // Among answers with a status, only the misconfigured ones alert.
      expect(verdict.answer).toBe(alert ? 'misconfigured' : 'transient');
    }
    if (verdict.action === 'give_up') expect(verdict.reason).toContain(`answered ${status}`);
  });

  it('429 with Retry-After carries the wait', async () => {
    platform.simulator.faults.add({
      match: '/payment/finish-checkout',
      status: 429,
      retryAfterS: 30,
    });
    expect(await attempt()).toMatchObject({ action: 'retry', alert: false, retryAfterMs: 30_000 });
  });

  function clientTimingOutIn(timeoutMs: number): PlatformClient {
    return new PlatformClient({
      ...DEMO_CREDENTIALS,
      baseUrl: platform.baseUrl,
      timeoutMs,
      logger: captureLog().logger,
    });
  }

  it('a timeout -> retry', async () => {
    platform.simulator.faults.add({ match: '/payment/finish-checkout', hang: true });
    expect(await attempt(clientTimingOutIn(300))).toMatchObject({
      action: 'retry',
      alert: false,
      reason: expect.stringContaining('timed out'),
    });
  });

  it('a reset connection -> retry', async () => {
    platform.simulator.faults.add({ match: '/payment/finish-checkout', reset: true });
    expect(await attempt()).toMatchObject({ action: 'retry', alert: false });
  });

  it('a refused connection -> retry', async () => {
    // A client of its own: no kept-alive connection from an earlier row, which the refusal
    // would reset, so the attempt meets the closed port itself.
    const fresh = clientTimingOutIn(10_000);
    const { reopened } = await platform.simulator.refuseConnections(2000);
    expect(await attempt(fresh)).toMatchObject({
      action: 'retry',
      alert: false,
      reason: expect.stringContaining('connection refused'),
    });
    // The next row needs the platform listening again.
    await reopened;
  });

  it('a 2xx with a body that is not JSON -> delivered', async () => {
    platform.simulator.faults.add({ match: '/payment/finish-checkout', malformed: true });
    expect((await attempt()).action).toBe('delivered');
  });
});
