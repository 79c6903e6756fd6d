import { Queue } from 'bullmq';
import type { CliAdapters, QueueAccess } from '../cli/cli-adapters';
import { CliFailure, EXIT } from '../cli/cli-io';
import { closeRedis, createRedis, waitForRedis } from '../infra/redis';
import { BullmqFailedDeliveries } from '../jobs/bullmq-failed-deliveries';
import { QUEUES } from '../jobs/queue-names';
import { RedisCheckoutStore } from '../store/redis-checkout-store';

/** The CLI's adapters on the connector's Redis: the store and the failed set, as the server has them. */
export const cliAdapters: CliAdapters = {
  async openQueues(redisConfig): Promise<QueueAccess> {
    const redis = createRedis(redisConfig.url, 'producer', 'connector-cli');
    // A failed command below says what went wrong; the connection's own errors add nothing.
    redis.on('error', () => undefined);
    if (!(await waitForRedis(redis, 5000))) {
      await closeRedis(redis);
      throw new CliFailure(`cannot reach Redis at REDIS_URL (${redisConfig.url})`, EXIT.failure);
    }
    const queue = new Queue(QUEUES.notifications, {
      connection: redis,
      prefix: redisConfig.prefix,
    });
    queue.on('error', () => undefined);
    const store = new RedisCheckoutStore(redis, redisConfig.prefix);
    return {
      store,
      failedDeliveries: new BullmqFailedDeliveries(queue, store),
      close: async () => {
        await queue.close();
        await closeRedis(redis);
      },
    };
  },
};
