import { runCliCaptured } from '../../support/cli';
import {
  eventually,
  settled,
  startHarness,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';

interface Story {
  checkout_id: string;
  state: string;
  method?: string;
  requests?: number;
  steps: Array<{ step: string; at?: string; note?: string }>;
  deliveries: Array<{
    kind: string;
    state: string;
    attempts: number;
    last_error?: string;
    next_attempt_at?: string;
  }>;
}

describe("connector checkout status: a checkout's story", () => {
  let h: Harness;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness({ start: { produceBackoffMs: 50 } });
    env = { REDIS_URL: h.redis.url, QUEUE_PREFIX: h.prefix };
  });
  afterAll(() => h.stop());

  const status = async (serviceId: number): Promise<Story[]> => {
    const result = await runCliCaptured(
      ['checkout', 'status', String(serviceId), '--format', 'json'],
      env,
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(result.stdout) as Story[];
  };

  async function checkoutOf(serviceId: number, action: 'pay' | 'pix' | 'decline'): Promise<string> {
    const before = h.simulator
      .accepted('checkout-url')
      .filter((c) => c.serviceId === serviceId).length;
    const requested = await h.simulator.requestCheckout(serviceId);
    const checkoutId = (requested.body as { checkout_id: string }).checkout_id;
    const url = await eventually(() => {
      const calls = h.simulator.accepted('checkout-url').filter((c) => c.serviceId === serviceId);
      return calls.length > before ? h.simulator.checkoutUrlFor(serviceId) : undefined;
    });
    // The platform asks again while the customer looks: the same checkout, a second request.
    await h.simulator.requestCheckout(serviceId);
    const answer = await fetch(`${url}/${action}`, { method: 'POST', redirect: 'manual' });
    expect(answer.status).toBe(303);
    return checkoutId;
  }

  it('tells every checkout of a service, newest first, each step with its time', async () => {
    const declined = await checkoutOf(1010, 'decline');
    await eventually(async () =>
      (await h.connector.deps.store.get(declined))?.state === 'reported' ? true : undefined,
    );
    const paid = await checkoutOf(1010, 'pay');
    await eventually(async () =>
      (await h.connector.deps.store.get(paid))?.state === 'reported' ? true : undefined,
    );
    await settled(h.connector.jobs);
    const stories = await status(1010);
    expect(stories.map((s) => s.checkout_id)).toEqual([paid, declined]);
    const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(stories[0]).toMatchObject({ state: 'reported', requests: 2, method: 'card' });
    expect(stories[0]?.steps).toEqual([
      { step: 'requested', at: iso, note: '2 requests' },
      { step: 'URL sent', at: iso },
      { step: 'paid', at: iso, note: expect.stringMatching(/^by card; transaction sbx_pay_/) },
      { step: 'finish delivered', at: iso, note: '1 attempt' },
    ]);
    expect(stories[1]?.steps.map((s) => s.step)).toEqual([
      'requested',
      'URL sent',
      'declined',
      'cancel delivered',
    ]);
    // Each step's time follows the one before.
    for (const story of stories) {
      const times = story.steps.map((s) => Date.parse(s.at ?? ''));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }

    const table = await runCliCaptured(['checkout', 'status', '1010'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(
        `^checkout ${paid}  sandbox  R\\$\\s[\\d.]+,\\d\\d  now paid \\(card\\), reported to the platform\\n`,
      ),
    );
    expect(table.stdout).toMatch(/^ {2}finish delivered +\d{4}-\S+ +1 attempt$/m);
    expect(table.stdout).toContain(`\n\ncheckout ${declined}  sandbox`);
  });

  it('says how a payment under way is being made: processing (Pix)', async () => {
    const checkoutId = await checkoutOf(1012, 'pix');
    const [story] = await status(1012);
    expect(story).toMatchObject({ checkout_id: checkoutId, state: 'processing', method: 'pix' });
    expect(story?.steps.find((s) => s.step === 'processing')).toMatchObject({ note: 'by Pix' });
    const table = await runCliCaptured(['checkout', 'status', '1012'], env);
    expect(table.stdout).toMatch(
      new RegExp(`^checkout ${checkoutId}  .*  now processing \\(Pix\\)\\n`),
    );
    expect(table.stdout).toMatch(/^ {2}processing +\d{4}-\S+ +by Pix$/m);
  });

  it('shows a delivery that is retrying: its attempts, next attempt and last error', async () => {
    h.simulator.faults.add({ match: '/payment/finish-checkout', status: 503, times: 1000 });
    try {
      const checkoutId = await checkoutOf(1011, 'pay');
      const story = await eventually(
        async () => {
          const [latest] = await status(1011);
          const finish = latest?.deliveries[0];
          return finish && finish.attempts >= 2 && finish.state === 'delayed' ? latest : undefined;
        },
        WAIT_DEADLINE_MS,
        'a finish retrying',
      );
      expect(story.checkout_id).toBe(checkoutId);
      expect(story.deliveries[0]).toMatchObject({
        kind: 'finish',
        last_error: expect.stringMatching(/503/),
        next_attempt_at: expect.stringMatching(/^\d{4}-/),
      });
      expect(story.steps.at(-1)).toMatchObject({
        step: 'finish retrying',
        note: expect.stringMatching(/^\d+ attempts, next attempt \S+, last error: .*503/),
      });
    } finally {
      h.simulator.faults.clear();
    }
  });

  it('exits 1 for a service without checkouts', async () => {
    const result = await runCliCaptured(['checkout', 'status', '1039'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: no checkouts of service 1039/);
  });
});
