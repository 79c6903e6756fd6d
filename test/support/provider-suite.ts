import type { StartOptions } from '../../src/main/compose';
import { eventually, settled, startHarness, WAIT_DEADLINE_MS, type Harness } from './harness';
import type { TestRedis } from './redis-server';

/** The checkout id in the checkout route's 202 answer. */
export const checkoutIdOf = (answer: { body: unknown }): string =>
  (answer.body as { checkout_id: string }).checkout_id;

/**
 * How `outcomeOf` shows a payment the reconciler found: recorded by a run of its scheduled job
 * (BullMQ ids a scheduler's runs `repeat:<scheduler>:<time>`), in no request.
 */
export const RECORDED_BY_THE_RECONCILER = {
  outcome: 'paid',
  requestId: undefined,
  queue: 'checkout',
  jobId: expect.stringMatching(/^repeat:reconcile:\d+$/),
};

/** A loopback fake of a payment provider, and the variables that aim the connector at it. */
export interface ProviderFake {
  start(): Promise<string>;
  stop(): Promise<void>;
  env(): Record<string, string>;
}

/** A connector running a provider's real adapter against its fake, and what a test asks of it. */
export interface ProviderSuite<F extends ProviderFake> {
  readonly fake: F;
  readonly h: Harness;
  /** The platform asks for a checkout of `serviceId`; resolves once it holds the URL. */
  open(serviceId: number): Promise<{ checkoutId: string; url: string }>;
  /** What the platform accepted of `endpoint` for `serviceId`. */
  accepted(
    endpoint: 'finish-checkout' | 'cancel-checkout',
    serviceId: number,
  ): ReturnType<Harness['simulator']['accepted']>;
  /**
   * Once the connector has settled: every finish or cancel the platform received for
   * `serviceId`, whatever it answered, and every outcome recorded for `checkoutId`, with where
   * it was recorded (a webhook's request, or which job).
   */
  outcomeOf(
    checkoutId: string,
    serviceId: number,
  ): Promise<{
    sent: Array<{ endpoint: string; body: unknown }>;
    recorded: Array<{ outcome: unknown; requestId: unknown; queue: unknown; jobId: unknown }>;
  }>;
}

/**
 * The hooks of a suite that runs the connector with a real provider adapter against its fake:
 * the fake starts first, the connector (and the platform simulator) aimed at it by `fakeEnv`
 * (the fake's own `env()` unless given) and `env`; both stop after. `redis`: a server the file
 * shares (a private one otherwise).
 */
export function providerSuite<F extends ProviderFake>(
  makeFake: () => F,
  options: {
    env?: Record<string, string>;
    start?: StartOptions;
    fakeEnv?: (fake: F) => Record<string, string>;
    redis?: () => TestRedis;
  } = {},
): ProviderSuite<F> {
  let fake: F | undefined;
  let harness: Harness | undefined;
  beforeAll(async () => {
    fake = makeFake();
    await fake.start();
    const fakeEnv = options.fakeEnv?.(fake) ?? fake.env();
    harness = await startHarness({
      env: { ...fakeEnv, ...options.env },
      start: options.start,
      redis: options.redis?.(),
    });
  });
  afterAll(async () => {
    try {
      await harness?.stop();
    } finally {
      await fake?.stop();
    }
  });
  return {
    get fake(): F {
      if (!fake) throw new Error('no fake outside a test');
      return fake;
    },
    get h(): Harness {
      if (!harness) throw new Error('no connector outside a test');
      return harness;
    },
    async open(serviceId) {
      const checkoutId = checkoutIdOf(await this.h.simulator.requestCheckout(serviceId));
      const url = await eventually(
        () => this.h.simulator.checkoutUrlFor(serviceId),
        WAIT_DEADLINE_MS,
        'url',
      );
      return { checkoutId, url };
    },
    accepted(endpoint, serviceId) {
      return this.h.simulator.accepted(endpoint).filter((c) => c.serviceId === serviceId);
    },
    async outcomeOf(checkoutId, serviceId) {
      await settled(this.h.connector.jobs);
      const sent = this.h.simulator.state.payments
        .filter((call) => call.serviceId === serviceId && call.endpoint !== 'checkout-url')
        .map(({ endpoint, body }) => ({ endpoint, body }));
      const recorded = this.h.log
        .entries()
        .filter((e) => e.message === 'checkout outcome recorded' && e.checkoutId === checkoutId)
        .map(({ outcome, requestId, queue, jobId }) => ({ outcome, requestId, queue, jobId }));
      return { sent, recorded };
    },
  };
}
