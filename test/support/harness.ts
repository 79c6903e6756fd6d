import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job, Queue } from 'bullmq';
import { loadConfig, type Config, type Env } from '../../src/config';
import { startConnector, type RunningConnector, type StartOptions } from '../../src/main/compose';
import {
  DEMO_CREDENTIALS,
  PlatformSimulator,
  type SimulatorOptions,
} from '../../src/simulator/platform-simulator';
import { captureLog, type CapturedLog } from './log-capture';
import { startTestRedis, type TestRedis } from './redis-server';

export const ROUTE_TOKEN = 'test-route-token-0123456789';

/** How long a test waits for an event before it calls it a hang. */
export const WAIT_DEADLINE_MS = 20_000;

/** A folder no one makes: the configuration finds no .env there, the developer's or any other. */
const NO_DOTENV_DIR = path.join(tmpdir(), `connector-test-no-dotenv-${randomUUID()}`);

/** The configuration `env` gives (over config/defaults.env), whatever .env is in the folder. */
export function configOf(env: Env): Config {
  return loadConfig(env, NO_DOTENV_DIR);
}

/** A connector under test's variables, besides its Redis, prefix and platform's URL. */
export const TEST_ENV = {
  NODE_ENV: 'test',
  PORT: '0',
  PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
  PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
  PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
  PLATFORM_TIMEOUT_MS: '2000',
  CHECKOUT_ROUTE_TOKEN: ROUTE_TOKEN,
  NOTIFY_BACKOFF_MS: '100',
};

export interface Harness {
  /** Starts another connector process-in-process on the same Redis, prefix and simulator. */
  addConnector(env?: Record<string, string>): Promise<RunningConnector>;
  redis: TestRedis;
  simulator: PlatformSimulator;
  connector: RunningConnector;
  log: CapturedLog;
  /** The connector's base URL. */
  url: string;
  /** The simulator's base URL (PLATFORM_BASE_URL). */
  platformUrl: string;
  prefix: string;
  stop(): Promise<void>;
}

/**
 * The whole product on loopback: a private redis-server (or REDIS_URL), the platform
 * simulator aimed at the connector's checkout route, and the connector itself, with a queue
 * prefix of its own so tests never see each other's data.
 */
export async function startHarness(
  options: {
    env?: Record<string, string>;
    simulator?: SimulatorOptions;
    start?: StartOptions;
    redis?: TestRedis;
    /** The suite stops or reconfigures Redis: start a private one even when REDIS_URL is set. */
    privateRedis?: boolean;
  } = {},
): Promise<Harness> {
  const redis = options.redis ?? (await startTestRedis({ private: options.privateRedis }));
  const simulator = new PlatformSimulator({ serviceCount: 40, ...options.simulator });
  const platformUrl = await simulator.start();
  const prefix = `t${randomBytes(4).toString('hex')}`;
  const log = captureLog({ level: 'debug', secrets: [ROUTE_TOKEN] });
  const configFor = (extra: Env = {}) =>
    configOf({
      ...TEST_ENV,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: prefix,
      PLATFORM_BASE_URL: platformUrl,
      ...options.env,
      ...extra,
    });
  const start = { logger: log.logger, host: '127.0.0.1', exit: () => undefined, ...options.start };
  const extras: RunningConnector[] = [];
  let config: Config;
  let connector: RunningConnector;
  try {
    config = configFor();
    connector = await startConnector(config, start);
  } catch (error) {
    // A half-started harness has no stop() for the suite to call: stop what did start.
    await simulator.stop();
    if (!options.redis) await redis.close();
    throw error;
  }
  simulator.connectTo({
    checkoutUrl: `${connector.url}${config.envShop?.routePath ?? '/checkout'}`,
    token: ROUTE_TOKEN,
  });
  return {
    redis,
    simulator,
    connector,
    log,
    url: connector.url,
    platformUrl,
    prefix,
    addConnector: async (env) => {
      // Every process of one deployment shares the public URL: here, the first connector's.
      const extra = await startConnector(configFor({ PUBLIC_URL: connector.url, ...env }), start);
      extras.push(extra);
      return extra;
    },
    stop: async () => {
      for (const extra of extras) await extra.shutdown.run('test done');
      await connector.shutdown.run('test done');
      await simulator.stop();
      if (!options.redis) await redis.close();
    },
  };
}

/**
 * Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`: a
 * deadline that only catches a hang (generous, for a loaded two-core machine), never a bound the
 * test asserts.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = WAIT_DEADLINE_MS,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Waits until the connector has nothing left to do now: no checkout job waiting or running, and
 * no notification waiting, running or due for a retry (expiry checks, delayed for later, do not
 * count). A negative check ("nothing more arrives") waits for this, not for a fixed time.
 */
export async function settled(
  jobs: { checkoutQueue: Queue; notificationQueue: Queue },
  timeoutMs = WAIT_DEADLINE_MS,
): Promise<void> {
  await eventually(
    async () => {
      const [checkout, notifications] = await Promise.all([
        jobs.checkoutQueue.getJobCounts('waiting', 'active', 'prioritized'),
        jobs.notificationQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized'),
      ]);
      const busy = [...Object.values(checkout), ...Object.values(notifications)];
      return busy.every((count) => count === 0) ? true : undefined;
    },
    timeoutMs,
    'the connector to settle',
  );
}

/** Waits until job `jobId` of `queue` has completed, and returns it as stored then. */
export async function completedJob(
  queue: Queue,
  jobId: string,
  timeoutMs = WAIT_DEADLINE_MS,
): Promise<Job> {
  return eventually(
    async () => {
      const job = await queue.getJob(jobId);
      if (!job || (await job.getState()) !== 'completed') return undefined;
      // Read again: the object fetched before completing holds no return value.
      return queue.getJob(jobId);
    },
    timeoutMs,
    `job ${jobId} to complete`,
  );
}
