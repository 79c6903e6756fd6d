import type { Redis } from 'ioredis';

/**
 * Redis's `maxmemory-policy`, or undefined when the server refuses CONFIG (some managed
 * services do). Anything but `noeviction` may silently drop queued jobs under memory pressure.
 */
export async function readEvictionPolicy(redis: Redis): Promise<string | undefined> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
    return reply[1];
  } catch {
    return undefined;
  }
}
