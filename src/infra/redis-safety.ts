import { primaries, type RedisCommands } from './redis';

/**
 * Redis's `maxmemory-policy`, read from `INFO memory` (managed services refuse `CONFIG GET`) of
 * every primary (a Cluster's each), or undefined when one does not say. Anything but
 * `noeviction` may silently drop queued jobs under memory pressure: the first primary that says
 * something else is the answer.
 */
export async function readEvictionPolicy(redis: RedisCommands): Promise<string | undefined> {
  try {
    const policies = await Promise.all(
      primaries(redis).map(async (node) => {
        const info = await node.info('memory');
        return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
      }),
    );
    if (policies.length === 0 || policies.includes(undefined)) return undefined;
    return policies.find((policy) => policy !== 'noeviction') ?? 'noeviction';
  } catch {
    return undefined;
  }
}
