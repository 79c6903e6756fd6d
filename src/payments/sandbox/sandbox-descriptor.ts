import { defineProvider } from '../define-provider';
import { MAX_EXPIRY_MINUTES, MAX_INSTALLMENTS, PAYMENT_METHODS } from '../payment-offer';
import { sandboxModule } from './sandbox-module';

/** The connector's own sandbox: no keys, no API; it plays any provider, with a payment page. */
export const sandboxProvider = defineProvider({
  name: 'sandbox',
  label: 'Sandbox',
  credential: { kind: 'none' },
  fields: {},
  secrets: [],
  variables: {},
  simulated: true,
  // It plays any provider: every method, installments, any window.
  offer: {
    methods: PAYMENT_METHODS,
    maxInstallments: MAX_INSTALLMENTS,
    maxExpiryMinutes: MAX_EXPIRY_MINUTES,
    why: {},
  },
  settings: ({ name }, common) => ({ name, ...common }),
  build: (settings, environment) =>
    sandboxModule({
      ...environment,
      shop: environment.scope,
      inProduction: settings.sandboxInProduction,
      payment: settings.payment,
    }),
});
