import { closeRedis, createRedis, waitForRedis } from '../../../src/redis/redis';
import { runScript } from '../../../src/redis/redis-scripts';
import { startTestRedis, type TestRedis } from '../../support/redis-server';
import { commandCalls } from '../../support/redis-topology';

describe('Lua scripts by SHA', () => {
  let redis: TestRedis;
  let client: ReturnType<typeof createRedis>;
  beforeAll(async () => {
    redis = await startTestRedis({ private: true });
    client = createRedis(redis.url, 'producer', 'test');
    expect(await waitForRedis(client, 5000)).toBe(true);
  });
  afterAll(async () => {
    await closeRedis(client);
    await redis.close();
  });

  const calls = async (command: string): Promise<number> => {
    const info = await client.info('commandstats');
    return commandCalls(info, command);
  };

  it('sends the text once, then only the SHA; again once after a SCRIPT FLUSH', async () => {
    const lua = "return {KEYS[1], ARGV[1], 'v1'}";
    const evalsBefore = await calls('eval');
    for (let i = 0; i < 5; i++) {
      expect(await runScript(client, lua, 1, 'k', String(i))).toEqual(['k', String(i), 'v1']);
    }
    expect((await calls('eval')) - evalsBefore).toBe(1);
    await client.script('FLUSH');
    expect(await runScript(client, lua, 1, 'k', 'after')).toEqual(['k', 'after', 'v1']);
    expect((await calls('eval')) - evalsBefore).toBe(2);
  });

  it('lets a script error through as it is', async () => {
    await expect(runScript(client, "return redis.call('NOPE')", 0)).rejects.toThrow(
      /NOPE|Unknown/i,
    );
  });
});
