import type { RedisCommands } from '../../redis/redis';
import type { PaymentOptions } from '../payment-offer';
import type { ProviderModule } from '../provider-module';
import { SandboxProvider } from './sandbox-provider';

/** The banner of every customer page while the sandbox may run in production (staging). */
export const SANDBOX_PAGE_NOTICE =
  'Ambiente de homologação: pagamentos simulados, nenhum valor é cobrado.';

/** Said once when a deployment that lets the sandbox run in production starts. */
export const SANDBOX_IN_PRODUCTION_WARNING =
  'the sandbox provider runs in production (SANDBOX_IN_PRODUCTION=true): its Pay button marks orders paid without money; use it only against a staging platform';

export function sandboxModule(options: {
  redis: RedisCommands;
  prefix: string;
  shop: string;
  publicUrl: string;
  /** The sandbox runs with NODE_ENV=production, on purpose (SANDBOX_IN_PRODUCTION=true). */
  inProduction: boolean;
  payment: PaymentOptions;
}): ProviderModule {
  const provider = new SandboxProvider(options.redis, {
    prefix: options.prefix,
    shop: options.shop,
    publicUrl: options.publicUrl,
    payment: options.payment,
  });
  return {
    provider,
    // Its payment page settles the payment here (src/payments/sandbox/sandbox-routes.ts).
    pages: provider,
    pageNotice: options.inProduction ? SANDBOX_PAGE_NOTICE : undefined,
  };
}
