import { z } from 'zod';
import { parseRedisUrl, RedisUrlError } from '../redis/redis-url';
import { secret } from './env-values';

/** Where Redis is (REDIS_URL: one of three forms), the key prefix, a Sentinel's own password. */
export const redisShape = {
  REDIS_URL: z
    .string()
    .superRefine((url, ctx) => {
      const problem = redisUrlProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .prefault('redis://127.0.0.1:6379')
    .describe(
      'Redis for queues and checkout state. One server: `redis://[user:password@]host:port[/db]` (`rediss://` for TLS). Sentinels to ask for the current primary, found again after a failover without a restart: `redis+sentinel://[user:password@]host1:26379,host2:26379,.../<master-name>[/db]` (`rediss+sentinel://`). Seed nodes of a Redis Cluster: `redis+cluster://[user:password@]host1:port1,host2:port2,...` (`rediss+cluster://`). A bad URL is a configuration error saying what is wrong (docs/redis.md "Redis").',
    ),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only')
    .prefault('connector')
    .describe('Key prefix, so several connectors can share one Redis.'),
  REDIS_SENTINEL_PASSWORD: secret(
    z
      .string()
      .min(1)
      .optional()
      .describe(
        "The Sentinels' own password (`requirepass` in `sentinel.conf`), when they have one, with a `redis+sentinel://` URL; the user and password in the URL are the data nodes'.",
      ),
  ),
};

function redisUrlProblem(url: string): string | undefined {
  try {
    parseRedisUrl(url);
    return undefined;
  } catch (error) {
    if (error instanceof RedisUrlError) return error.problem;
    throw error;
  }
}

/** Redis as every process and command connects to it (src/redis/redis.ts builds the clients). */
export interface RedisConfig {
  url: string;
  prefix: string;
  sentinelPassword?: string;
}

export function redisConfig(raw: z.infer<z.ZodObject<typeof redisShape>>): RedisConfig {
  return {
    url: raw.REDIS_URL,
    prefix: raw.QUEUE_PREFIX,
    ...(raw.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: raw.REDIS_SENTINEL_PASSWORD } : {}),
  };
}
