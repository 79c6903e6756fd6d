import { startPrivateRedis, type PrivateRedis } from '../../src/demo/private-redis';

export type TestRedis = PrivateRedis;

/**
 * A Redis for one suite: the server of REDIS_URL when that is set and the suite only uses it,
 * else a private redis-server. A suite that stops, restarts or reconfigures its Redis asks for
 * `{ private: true }` and always gets its own, whatever REDIS_URL says.
 */
export async function startTestRedis(
  options: { appendOnly?: boolean; private?: boolean } = {},
): Promise<TestRedis> {
  const url = process.env.REDIS_URL;
  if (url && !options.private) {
    return {
      url,
      private: false,
      stop: () =>
        Promise.reject(new Error('a shared REDIS_URL cannot be stopped: ask for a private Redis')),
      start: () =>
        Promise.reject(new Error('a shared REDIS_URL cannot be started: ask for a private Redis')),
      close: async () => {},
    };
  }
  return startPrivateRedis(options);
}
