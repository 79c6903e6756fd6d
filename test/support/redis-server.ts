import { startPrivateRedis, type PrivateRedis } from '../../src/infra/private-redis';

export type TestRedis = PrivateRedis;

/** A private redis-server for one suite, or the server of REDIS_URL when that is set. */
export async function startTestRedis(options: { appendOnly?: boolean } = {}): Promise<TestRedis> {
  const url = process.env.REDIS_URL;
  if (url) {
    return {
      url,
      private: false,
      stop: async () => {},
      start: async () => {},
      close: async () => {},
    };
  }
  return startPrivateRedis(options);
}
