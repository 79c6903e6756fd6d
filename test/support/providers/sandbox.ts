import type { PaymentMethod } from '../../../src/payments/payment-offer';
import { sandboxPaymentPage } from '../../../src/payments/sandbox/sandbox-page';
import type { SandboxProvider } from '../../../src/payments/sandbox/sandbox-provider';
import type { ProviderFake } from '../provider-suite';
import { testProvider } from './test-provider';

/** The sandbox has no outside party: the connector is its own provider, so its fake is none. */
class NoFake implements ProviderFake {
  start(): Promise<string> {
    return Promise.resolve('');
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  env(): Record<string, string> {
    return { PAYMENT_PROVIDER: 'sandbox' };
  }
}

/** Our word for each of the sandbox page's pay buttons (its form's action): Pay is a card. */
const METHOD_OF_BUTTON: Readonly<Record<string, PaymentMethod>> = {
  pay: 'card',
  pix: 'pix',
  boleto: 'boleto',
};

/** What the sandbox's page offers a payment, in our words: the pay buttons it shows. */
async function offeredBy(sandbox: SandboxProvider, checkoutId: string): Promise<PaymentMethod[]> {
  const payment = await sandbox.payment(checkoutId);
  if (!payment) throw new Error(`no sandbox payment ${checkoutId}`);
  const page = sandboxPaymentPage(payment);
  const actions = [...page.matchAll(/<form method="post" action="[^"]*\/(\w+)">/g)];
  return actions.flatMap(([, action]) => {
    const method = action === undefined ? undefined : METHOD_OF_BUTTON[action];
    return method ? [method] : [];
  });
}

/**
 * The connector's own sandbox: the customer's hand is its page's buttons (src/payments/sandbox/
 * sandbox-routes.ts), which settle the payment where the adapter reads it. It has no webhooks
 * (its page reports directly), so the flow scenarios, a provider's word to the connector, are
 * not its: checkout-flow.test.ts follows it through its page.
 */
export const sandboxRow = testProvider({
  name: 'sandbox',
  title: 'sandbox',
  fake: () => new NoFake(),
  env: (fake) => fake.env(),
  contract: {
    offers: { card: true, boleto: true, pixUnderWay: true },
    // No webhook to forge: whatever arrives at its path is acknowledged and ignored.
    forgeries: ['tampered', 'wrong secret', 'stale', 'missing'],
    driver: (_fake, built) => {
      // Its module hands its pages the sandbox itself: the buttons' settle and after.
      const sandbox = built.pages as SandboxProvider;
      return {
        // As its page's buttons do: Pay is a card; Pay again confirms a Pix or boleto under way.
        pay: async (checkoutId) => void (await sandbox.settle(checkoutId, 'paid', 'card')),
        startPix: async (checkoutId) =>
          void (await sandbox.settle(checkoutId, 'processing', 'pix')),
        confirmPix: async (checkoutId) => void (await sandbox.settle(checkoutId, 'paid', 'card')),
        issueBoleto: async (checkoutId) =>
          void (await sandbox.settle(checkoutId, 'processing', 'boleto')),
        refund: async (checkoutId) => void (await sandbox.after(checkoutId, 'refunded')),
        methodsOffered: (checkoutId) => offeredBy(sandbox, checkoutId),
      };
    },
  },
  inbound: { forgedAuth: [] },
});
