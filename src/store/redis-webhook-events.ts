import type { RedisCommands } from '../redis/redis';
import type { WebhookEvents } from '../checkout/ports';
import type { CheckoutKeys } from './checkout-keys';

/** Providers retry webhooks for up to 3 days; events are remembered longer. */
const EVENT_RETENTION_MS = 7 * 86_400_000;

export class RedisWebhookEvents implements WebhookEvents {
  constructor(
    private readonly redis: RedisCommands,
    private readonly keys: CheckoutKeys,
  ) {}

  async handled(provider: string, eventId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.event(provider, eventId))) === 1;
  }

  async markHandled(provider: string, eventId: string): Promise<void> {
    await this.redis.set(this.keys.event(provider, eventId), '1', 'PX', EVENT_RETENTION_MS);
  }
}
