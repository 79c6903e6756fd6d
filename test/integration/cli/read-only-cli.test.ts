import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { runCliCaptured } from '../../support/cli';
import { startHarness, type Harness } from '../../support/harness';

/**
 * CONTRACT "The first hour": a command that only reads writes nothing to Redis, even pointed at
 * a QUEUE_PREFIX that holds nothing (a typo, another deployment's Redis).
 */
describe('the CLI, reading', () => {
  let h: Harness;
  let redis: Redis;
  beforeAll(async () => {
    h = await startHarness();
    redis = new Redis(h.redis.url, { lazyConnect: true });
    await redis.connect();
  });
  afterAll(async () => {
    await redis.quit();
    await h.stop();
  });

  /** Every key whose name holds `prefix` (hash-tagged keys start with `{`). */
  async function keysOf(prefix: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found;
  }

  it('writes no key under a prefix that holds nothing', async () => {
    const prefix = `typo-${randomBytes(4).toString('hex')}`;
    const env = { REDIS_URL: h.redis.url, QUEUE_PREFIX: prefix };
    for (const args of [
      ['checkout', 'status', '1001'],
      ['checkout', 'status', '--unreadable'],
      ['notifications', 'failed'],
      ['notifications', 'failed', '--shop', 'loja-a'],
      ['shops', 'list'],
    ]) {
      const run = await runCliCaptured(args, env);
      // 0, or 1 for "nothing found" (checkout status of a service without checkouts).
      expect({ args, answered: run.code <= 1 }).toEqual({ args, answered: true });
    }
    expect(await keysOf(prefix)).toEqual([]);
  });
});
