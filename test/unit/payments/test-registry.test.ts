import { CONNECTABLE, flowOf } from '../../../src/connect/connect-links';
import { PROVIDER_LIST, PROVIDER_NAMES, PROVIDERS } from '../../../src/payments/providers';
import { TEST_PROVIDER_LIST, TEST_PROVIDERS } from '../../support/providers';

/*
 * The test registry (test/support/providers.ts) is to the tests what the list of providers is to
 * the code: a provider added to src/payments/providers.ts without its row (a fake, a driver, its
 * variables) fails here, and so does a row that lacks what its descriptor declares.
 */
describe('the test registry of providers', () => {
  it('has a row per provider of the code, in its order, each under its own name', () => {
    expect(TEST_PROVIDER_LIST.map((row) => row.name)).toEqual(PROVIDER_NAMES);
    for (const [key, row] of Object.entries(TEST_PROVIDERS)) expect(row.name).toBe(key);
  });

  it('drives the shared flow of every provider that takes real money', () => {
    const simulated = PROVIDER_LIST.filter((provider) => provider.simulated).map((p) => p.name);
    const withoutFlow = TEST_PROVIDER_LIST.filter((row) => !row.flow).map((row) => row.name);
    expect(withoutFlow).toEqual(simulated);
  });

  it("has the vendor's account of every provider a link connects", () => {
    const withVendor = TEST_PROVIDER_LIST.filter((row) => row.vendorEnv).map((row) => row.name);
    expect(withVendor).toEqual(CONNECTABLE);
  });

  it('shapes a body for each endpoint of its own a descriptor declares', () => {
    const declared = (has: (name: string) => boolean) => PROVIDER_NAMES.filter(has);
    const shaped = (has: (row: (typeof TEST_PROVIDER_LIST)[number]) => unknown) =>
      TEST_PROVIDER_LIST.filter(has).map((row) => row.name);
    expect(shaped((row) => row.inbound.webhookBody)).toEqual(
      declared((name) => PROVIDERS[name as keyof typeof PROVIDERS].webhookSuffix !== undefined),
    );
    expect(shaped((row) => row.inbound.linkForm)).toEqual(
      declared((name) => flowOf(name)?.submit !== undefined),
    );
    expect(shaped((row) => row.inbound.connectEvent)).toEqual(
      declared((name) => flowOf(name)?.events !== undefined),
    );
  });
});
