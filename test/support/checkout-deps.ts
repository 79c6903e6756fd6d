import { randomBytes } from 'node:crypto';
import type { CheckoutDeps } from '../../src/checkout/checkout-deps';
import { produceCheckout } from '../../src/checkout/produce-checkout';
import { requestCheckout } from '../../src/checkout/request-checkout';
import { closeRedis, createRedis, waitForRedis, type RedisCommands } from '../../src/redis/redis';
import type { BullmqCheckoutJobs } from '../../src/jobs/bullmq-checkout-jobs';
import { buildShop, shopParts } from '../../src/main/dependencies';
import { envShopSettings } from '../../src/main/shop-deps';
import type { PaymentProvider } from '../../src/payments/payment-provider';
import { SandboxProvider } from '../../src/payments/sandbox/sandbox-provider';
import { configOf, TEST_ENV } from './harness';
import { captureLog, type CapturedLog } from './log-capture';
import { startPlatform } from './platform';
import { startTestRedis, type TestRedis } from './redis-server';

/** The use cases' dependencies on a real Redis, with a clock the test moves by hand. */
export interface UseCaseWorld {
  deps: CheckoutDeps;
  redis: RedisCommands;
  prefix: string;
  jobs: BullmqCheckoutJobs;
  sandbox: SandboxProvider;
  log: CapturedLog;
  /** The time the deps see. */
  now: Date;
  advance(ms: number): void;
  close(): Promise<void>;
}

/** How a use-case world differs from the defaults. */
export interface UseCaseOptions {
  /** How often the reconciler's passes run (60 s): a changed checkout is due half of it after. */
  reconcileIntervalMs?: number;
  expiryMs?: number;
}

/**
 * The env shop's checkout deps as the composition root builds them (`buildShop`), under a prefix
 * of their own, with no workers, at the platform simulator at `platformUrl`, and a sandbox on the
 * test's clock: a test calls a use case and then reads the store and the queues to see what it did.
 */
export async function useCaseWorld(
  redisUrl: string,
  platformUrl: string,
  options: UseCaseOptions = {},
): Promise<UseCaseWorld> {
  const redis = createRedis(redisUrl, 'producer', 'test');
  if (!(await waitForRedis(redis, 5000))) throw new Error(`no Redis at ${redisUrl}`);
  const prefix = `u${randomBytes(4).toString('hex')}`;
  const log = captureLog();
  const world = { now: new Date('2026-11-20T12:00:00Z') };
  const clock = () => new Date(world.now);
  const config = configOf({
    ...TEST_ENV,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    PLATFORM_BASE_URL: platformUrl,
    NOTIFY_MAX_ATTEMPTS: '3',
    RECONCILE_INTERVAL_MS: String(options.reconcileIntervalMs ?? 60_000),
  });
  const publicUrl = 'http://127.0.0.1:9';
  const expiryMs = options.expiryMs ?? 3_600_000;
  const parts = shopParts(config, { redis, logger: log.logger, publicUrl }, { expiryMs, clock });
  const { jobs } = parts;
  const sandbox = new SandboxProvider(redis, { prefix, shop: 'default', publicUrl, now: clock });
  const deps: CheckoutDeps = {
    ...buildShop(envShopSettings(config)!, parts).deps,
    provider: sandbox,
  };
  return {
    deps,
    redis,
    prefix,
    jobs,
    sandbox,
    log,
    get now() {
      return world.now;
    },
    set now(value: Date) {
      world.now = value;
    },
    advance(ms) {
      world.now = new Date(world.now.getTime() + ms);
    },
    close: async () => {
      await jobs.close();
      await closeRedis(redis);
    },
  };
}

/**
 * The hooks of a use-case suite: one Redis and one platform simulator for the file, a fresh
 * world (its own prefix) for every test. Call at the top of a describe; read `world` in tests.
 */
export function useCaseSuite(options: UseCaseOptions = {}) {
  let redis: TestRedis | undefined;
  let platform: Awaited<ReturnType<typeof startPlatform>> | undefined;
  let world: UseCaseWorld | undefined;
  let nextService = 1001;
  beforeAll(async () => {
    redis = await startTestRedis();
    platform = await startPlatform({ serviceCount: 25 });
  });
  afterAll(async () => {
    await platform?.simulator.stop();
    await redis?.close();
  });
  beforeEach(async () => {
    world = await useCaseWorld(redis!.url, platform!.baseUrl, options);
  });
  afterEach(() => world?.close());
  const suite = {
    get world(): UseCaseWorld {
      if (!world) throw new Error('no world outside a test');
      return world;
    },
    get platform() {
      if (!platform) throw new Error('no platform outside a test');
      return platform;
    },
    /** A checkout as the platform's request leaves it (each of its own service); `produced` also sends its URL. */
    async checkout(produced = true): Promise<string> {
      const answer = await requestCheckout(suite.world.deps, nextService++);
      if (answer.kind !== 'accepted') throw new Error(`checkout refused: ${answer.kind}`);
      if (produced) {
        await produceCheckout(suite.world.deps, answer.checkoutId, answer.checkoutId);
      }
      return answer.checkoutId;
    },
  };
  return suite;
}

/** The sandbox seen through another provider's limits or mishaps: `changes` replace its methods. */
export function sandboxWith(
  sandbox: SandboxProvider,
  changes: {
    createCheckout?: PaymentProvider['createCheckout'];
    parseWebhook?: PaymentProvider['parseWebhook'];
    /** Another cancel, or `null` for a provider that cannot close a checkout. */
    cancelCheckout?: PaymentProvider['cancelCheckout'] | null;
  },
): PaymentProvider {
  const cancel =
    changes.cancelCheckout === null
      ? undefined
      : (changes.cancelCheckout ?? ((ref) => sandbox.cancelCheckout(ref)));
  return {
    name: sandbox.name,
    createCheckout: changes.createCheckout ?? ((request) => sandbox.createCheckout(request)),
    getStatus: (ref) => sandbox.getStatus(ref),
    parseWebhook: changes.parseWebhook ?? (() => sandbox.parseWebhook()),
    ...(cancel ? { cancelCheckout: cancel } : {}),
  };
}
