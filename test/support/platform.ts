import { PlatformClient, type PlatformClientOptions } from '../../src/platform/platform-client';
import {
  DEMO_CREDENTIALS,
  PlatformSimulator,
  type SimulatorOptions,
} from '../../src/simulator/platform-simulator';
import { captureLog } from './log-capture';
import { startTestRedis, type TestRedis } from './redis-server';

/** A started simulator and a client aimed at it, both on loopback. */
export async function startPlatform(
  simulatorOptions: SimulatorOptions = {},
  clientOptions: Partial<PlatformClientOptions> = {},
) {
  const simulator = new PlatformSimulator(simulatorOptions);
  const baseUrl = await simulator.start();
  const log = captureLog();
  const credentials = simulatorOptions.credentials ?? DEMO_CREDENTIALS;
  const client = new PlatformClient({
    baseUrl,
    email: credentials.email,
    password: credentials.password,
    apiKey: credentials.apiKey,
    timeoutMs: 2000,
    logger: log.logger,
    getRetryBaseMs: 20,
    ...clientOptions,
  });
  return { simulator, client, log, baseUrl };
}

/**
 * The hooks of a suite that starts connector processes: one Redis (REDIS_URL's, or a private one)
 * and one platform simulator for the file, stopped after it. Read them inside tests.
 */
export function redisAndSimulator(): {
  readonly redis: TestRedis;
  readonly simulator: PlatformSimulator;
} {
  let redis: TestRedis | undefined;
  let simulator: PlatformSimulator | undefined;
  beforeAll(async () => {
    redis = await startTestRedis();
    simulator = new PlatformSimulator();
    await simulator.start();
  });
  afterAll(async () => {
    await simulator?.stop();
    await redis?.close();
  });
  return {
    get redis(): TestRedis {
      if (!redis) throw new Error('no Redis outside a test');
      return redis;
    },
    get simulator(): PlatformSimulator {
      if (!simulator) throw new Error('no simulator outside a test');
      return simulator;
    },
  };
}
