import type { Redis } from 'ioredis';

/**
 * Redis's `maxmemory-policy`, read from `INFO memory` (managed services refuse `CONFIG GET`), or
 * undefined when the answer does not say. Anything but `noeviction` may silently drop queued jobs
 * under memory pressure.
 */
export async function readEvictionPolicy(redis: Redis): Promise<string | undefined> {
  try {
    const info = await redis.info('memory');
    return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  } catch {
    return undefined;
  }
}
