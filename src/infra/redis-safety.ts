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

/**
 * What a `maxmemory-policy` (as `readEvictionPolicy` read it) means where the connector runs:
 * `safe` (noeviction), `unknown` (a primary did not say), or, for any other, `refused` in
 * production (the start refuses to run on it, exit 78) and `warned` elsewhere. The start and
 * `connector doctor` judge by it alike.
 */
export function evictionRisk(
  policy: string | undefined,
  production: boolean,
): 'safe' | 'unknown' | 'refused' | 'warned' {
  if (policy === 'noeviction') return 'safe';
  if (policy === undefined) return 'unknown';
  return production ? 'refused' : 'warned';
}
