import { primaries, type RedisCommands } from './redis';

/**
 * Redis's `maxmemory-policy` from every primary's `INFO memory` (managed services refuse `CONFIG
 * GET`): the first that is not `noeviction` (which may drop queued jobs), undefined if one does not say.
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

/** What a `maxmemory-policy` means here, for the start (refused: exit 78) and `connector doctor` alike. */
export function evictionRisk(
  policy: string | undefined,
  production: boolean,
): 'safe' | 'unknown' | 'refused' | 'warned' {
  if (policy === 'noeviction') return 'safe';
  if (policy === undefined) return 'unknown';
  return production ? 'refused' : 'warned';
}
