import { providerFlowScenarios } from '../../support/provider-flow-suite';
import { providerSuite } from '../../support/provider-suite';
import { TEST_PROVIDER_LIST } from '../../support/providers';
import { startTestRedis, type TestRedis } from '../../support/redis-server';

/*
 * Every provider with a word of its own to the connector (the test registry's rows with a flow
 * driver), through the shared scenarios: the env shop on it, its fake, one Redis for the file.
 * What only one provider does is in its own file (stripe-flow.test.ts, pix-flow.test.ts...).
 */
let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis.close());

describe.each(TEST_PROVIDER_LIST.filter((row) => row.flow).map((row) => [row.name, row] as const))(
  'PAYMENT_PROVIDER=%s against its loopback fake: the shared flow',
  (_name, row) => {
    const suite = providerSuite(() => row.fake(), {
      fakeEnv: (fake) => row.env(fake),
      env: { RECONCILE_INTERVAL_MS: '500' },
      start: { produceBackoffMs: 50 },
      redis: () => redis,
    });
    providerFlowScenarios(suite, row);
  },
);
