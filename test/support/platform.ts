import { PlatformClient, type PlatformClientOptions } from '../../src/platform/platform-client';
import {
  DEMO_CREDENTIALS,
  PlatformSimulator,
  type SimulatorOptions,
} from '../../src/simulator/platform-simulator';
import { captureLog } from './log-capture';

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
