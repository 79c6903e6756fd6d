import { defineProvider } from '../define-provider';
import { MAX_EXPIRY_MINUTES, MAX_INSTALLMENTS, PAYMENT_METHODS } from '../payment-offer';
import { definePages } from '../provider-pages';
import {
  SANDBOX_IN_PRODUCTION_WARNING,
  SANDBOX_PAGE_NOTICE,
  sandboxModule,
} from './sandbox-module';
import { sandboxRoutes } from './sandbox-routes';

/** The connector's own sandbox: no keys, no API; it plays any provider, with a payment page. */
export const sandboxProvider = defineProvider({
  name: 'sandbox',
  label: 'Sandbox',
  credential: { kind: 'none' },
  fields: {},
  secrets: [],
  variables: {},
  simulated: { inProduction: SANDBOX_IN_PRODUCTION_WARNING, pageNotice: SANDBOX_PAGE_NOTICE },
  pages: definePages({ paths: ['/sandbox'], routes: sandboxRoutes }),
  offer: {
    methods: PAYMENT_METHODS,
    maxInstallments: MAX_INSTALLMENTS,
    maxExpiryMinutes: MAX_EXPIRY_MINUTES,
    refunds: PAYMENT_METHODS,
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
