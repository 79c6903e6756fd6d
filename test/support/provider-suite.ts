import type { StartOptions } from '../../src/main/compose';
import { startHarness, type Harness } from './harness';

/** A loopback fake of a payment provider, and the variables that aim the connector at it. */
export interface ProviderFake {
  start(): Promise<string>;
  stop(): Promise<void>;
  env(): Record<string, string>;
}

/**
 * The hooks of a suite that runs the connector with a real provider adapter against its fake:
 * the fake starts first, the connector (and the platform simulator) aimed at it; both stop after.
 */
export function providerSuite<F extends ProviderFake>(
  makeFake: () => F,
  options: { env?: Record<string, string>; start?: StartOptions } = {},
): { readonly fake: F; readonly h: Harness } {
  let fake: F | undefined;
  let harness: Harness | undefined;
  beforeAll(async () => {
    fake = makeFake();
    await fake.start();
    harness = await startHarness({ env: { ...fake.env(), ...options.env }, start: options.start });
  });
  afterAll(async () => {
    await harness?.stop();
    await fake?.stop();
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
  };
}
