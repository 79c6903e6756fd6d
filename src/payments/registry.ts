import type { Redis } from 'ioredis';
import { webhookPath } from '../shops/shop-id';
import type { ProviderModule } from './provider-module';
import { sandboxModule } from './sandbox/sandbox-module';
import { MercadoPagoProvider } from './mercadopago/mercadopago-provider';
import type * as StripeModule from './stripe/stripe-provider';
import type { StripeSettings } from './stripe/stripe-provider';

/** The provider settings of the configuration. */
export interface ProviderSettings {
  /** PAYMENT_PROVIDER. */
  name: 'sandbox' | 'stripe' | 'mercadopago';
  /** SANDBOX_IN_PRODUCTION=true under NODE_ENV=production. */
  sandboxInProduction: boolean;
  /** With PAYMENT_PROVIDER=stripe (the configuration requires them then). */
  stripe?: StripeSettings;
  /** With PAYMENT_PROVIDER=mercadopago (the configuration requires them then). */
  mercadopago?: { accessToken: string; webhookSecret: string; apiUrl?: string };
}

/** What every provider module is built with. */
export interface ProviderEnvironment {
  redis: Redis;
  prefix: string;
  /** The shop the provider account is of. */
  shop: string;
  publicUrl: string;
}

/** Builds the provider PAYMENT_PROVIDER names; the one place that knows providers by name. */
export function buildProviderModule(
  settings: ProviderSettings,
  environment: ProviderEnvironment,
): ProviderModule {
  switch (settings.name) {
    case 'sandbox':
      return sandboxModule({ ...environment, inProduction: settings.sandboxInProduction });
    case 'stripe':
      if (!settings.stripe) throw new Error('PAYMENT_PROVIDER=stripe without Stripe settings');
      return { provider: new (loadStripe().StripeProvider)(settings.stripe), startWarnings: [] };
    case 'mercadopago':
      if (!settings.mercadopago) {
        throw new Error('PAYMENT_PROVIDER=mercadopago without Mercado Pago settings');
      }
      return {
        provider: new MercadoPagoProvider({
          ...settings.mercadopago,
          notificationUrl: `${environment.publicUrl}${webhookPath('mercadopago', environment.shop)}`,
        }),
        startWarnings: [],
      };
  }
}

/** The Stripe SDK is loaded only when Stripe is the provider (about 15 MB of memory otherwise). */
function loadStripe(): typeof StripeModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./stripe/stripe-provider') as typeof StripeModule;
}
