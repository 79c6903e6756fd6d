// lint as: src/cli/fixture.ts — the CLI building the Redis store instead of using its ports.
import { RedisCheckoutStore } from '../store/redis-checkout-store';

export const store = RedisCheckoutStore;
