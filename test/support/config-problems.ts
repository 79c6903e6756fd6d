import { ConfigError, loadConfig } from '../../src/config';

/** What the configuration says is wrong with `env` (none when it loads), read from `dir`. */
export function configProblems(env: Record<string, string>, dir: string): string[] {
  try {
    loadConfig(env, dir);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
