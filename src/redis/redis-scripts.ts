import { createHash } from 'node:crypto';
import type { RedisCommands } from './redis';

const shas = new Map<string, string>();

/** A script's SHA1, as Redis names it for EVALSHA (computed once per text). */
export function scriptSha(lua: string): string {
  let sha = shas.get(lua);
  if (!sha) {
    sha = createHash('sha1').update(lua).digest('hex');
    shas.set(lua, sha);
  }
  return sha;
}

/** Runs a Lua script by its SHA1 (EVALSHA), sending its text only on NOSCRIPT (a first run, a restart, a flush). */
export async function runScript(
  redis: RedisCommands,
  lua: string,
  numKeys: number,
  ...args: Array<string | number>
): Promise<unknown> {
  try {
    return await redis.evalsha(scriptSha(lua), numKeys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(lua, numKeys, ...args);
  }
}
