import type { RedisCommands } from '../infra/redis';
import { webhookPath } from '../shops/shop-id';
import type { ProviderModule } from './provider-module';
import { sandboxModule } from './sandbox/sandbox-module';
import { AsaasProvider } from './asaas/asaas-provider';
import { redisCreatedCheckouts } from './created-checkouts';
import { MercadoPagoProvider } from './mercadopago/mercadopago-provider';
import type * as StripeModule from './stripe/stripe-provider';
import type { ProviderSettings } from './provider-fields';

export type { ProviderSettings } from './provider-fields';

/** What every provider module is built with. */
export interface ProviderEnvironment {
  redis: RedisCommands;
  prefix: string;
  /** The shop the provider account is of. */
  shop: string;
  /** The scope of the shop's data keys (src/infra/keyspace.ts `shopScope`). */
  scope: string;
  publicUrl: string;
}

/** Builds the provider PAYMENT_PROVIDER names; the one place that knows providers by name. */
export function buildProviderModule(
  settings: ProviderSettings,
  environment: ProviderEnvironment,
): ProviderModule {
  switch (settings.name) {
    case 'sandbox':
      return sandboxModule({
        ...environment,
        shop: environment.scope,
        inProduction: settings.sandboxInProduction,
        payment: settings.payment,
      });
    case 'stripe':
      if (!settings.stripe) throw new Error('PAYMENT_PROVIDER=stripe without Stripe settings');
      return {
        provider: new (loadStripe().StripeProvider)({
          ...settings.stripe,
          payment: settings.payment,
        }),
        startWarnings: [],
      };
    case 'mercadopago':
      if (!settings.mercadopago) {
        throw new Error('PAYMENT_PROVIDER=mercadopago without Mercado Pago settings');
      }
      return {
        provider: new MercadoPagoProvider({
          ...settings.mercadopago,
          payment: settings.payment,
          notificationUrl: `${environment.publicUrl}${webhookPath('mercadopago', environment.shop)}`,
        }),
        startWarnings: [],
      };
    case 'asaas':
      if (!settings.asaas) throw new Error('PAYMENT_PROVIDER=asaas without Asaas settings');
      return {
        provider: new AsaasProvider({
          ...settings.asaas,
          payment: settings.payment,
          created: redisCreatedCheckouts(
            environment.redis,
            environment.prefix,
            environment.scope,
            'asaas',
          ),
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
