import { Redis } from 'ioredis';
import { AppError } from '../../src/errors';
import { serverPid, startPrivateRedis, type PrivateRedis } from '../../src/infra/private-redis';
import { ReplicaWait } from '../../src/infra/replica-wait';
import { eventually } from '../support/harness';

/*
 * The replica wait (src/infra/replica-wait.ts) on a real primary and replica: a WAIT only where
 * a replica is in sync, REDIS_UNAVAILABLE when it does not confirm, and no wait at all (said once)
 * where the server refuses the commands it needs, as a managed service may.
 */
describe('waiting for a replica to hold the writes', () => {
  let primary: PrivateRedis;
  let replica: PrivateRedis | undefined;
  let client: Redis;

  const waits = async () => {
    const info = await client.info('commandstats');
    return Number(/cmdstat_wait:calls=(\d+)/.exec(info)?.[1] ?? 0);
  };

  /** Starts the replica (once) and waits until it is in sync. */
  const replicated = async (): Promise<PrivateRedis> => {
    const started = (replica ??= await startPrivateRedis({ replicaOf: primary.url }));
    await eventually(
      async () =>
        /slave0:.*state=online/.test(await client.info('replication')) ? true : undefined,
      10_000,
      'the replica in sync',
    );
    return started;
  };

  beforeAll(async () => {
    primary = await startPrivateRedis();
    client = new Redis(primary.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await replica?.close();
    await primary?.close();
  });

  it('waits only where a replica is in sync, and fails the step when it does not confirm', async () => {
    // A lone primary (when this runs first): nothing to wait for.
    const before = await waits();
    if (!replica) {
      await new ReplicaWait(client).held();
      expect(await waits()).toBe(before);
    }
    const inSync = await replicated();
    await client.set('k', 'v');
    await new ReplicaWait(client).held();
    expect(await waits()).toBe(before + 1);

    // A replica on a stalled machine: connected, never confirming.
    const pid = await serverPid(Number(new URL(inSync.url).port));
    if (!pid) throw new Error('no replica pid');
    process.kill(pid, 'SIGSTOP');
    try {
      await client.set('k', 'w');
      const failed = await new ReplicaWait(client, { timeoutMs: 200 }).held().catch((e) => e);
      expect(failed).toBeInstanceOf(AppError);
      expect(failed).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  }, 30_000);

  it('gives up on a primary that does not answer, as REDIS_UNAVAILABLE, never waiting forever', async () => {
    await replicated();
    // As a worker's connection is: its commands wait for the server, however long it takes.
    const patient = new Redis(primary.url, { maxRetriesPerRequest: null });
    await patient.set('k', 'v');
    const pid = await serverPid(Number(new URL(primary.url).port));
    if (!pid) throw new Error('no primary pid');
    process.kill(pid, 'SIGSTOP');
    try {
      // Neither INFO nor WAIT is answered: the wait ends by its own bound, and the caller retries.
      const failed = await new ReplicaWait(patient, { timeoutMs: 200 }).held().catch((e) => e);
      expect(failed).toBeInstanceOf(AppError);
      expect(failed).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    } finally {
      process.kill(pid, 'SIGCONT');
      patient.disconnect();
    }
  });

  it('shares WAITs between callers of the same moment, each covered', async () => {
    await replicated();
    const wait = new ReplicaWait(client);
    await wait.held();
    const before = await waits();
    // Fifty requests writing and waiting at once, as the route under load.
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        await client.set(`k${i}`, String(i));
        await wait.held();
      }),
    );
    const sent = (await waits()) - before;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(10);
    // And one caller alone, after them, gets a WAIT of its own.
    await client.set('alone', '1');
    await wait.held();
    expect((await waits()) - before).toBe(sent + 1);
  });

  it('does not wait where the server refuses WAIT, and says so once', async () => {
    // A user without WAIT, as a managed service may give.
    await client.call('ACL', 'SETUSER', 'nowait', 'on', '>pw-nowait', '~*', '+@all', '-wait');
    const restricted = new Redis(primary.url, { username: 'nowait', password: 'pw-nowait' });
    try {
      await replicated();
      const warnings: string[] = [];
      const wait = new ReplicaWait(restricted, { warn: (message) => warnings.push(message) });
      const before = await waits();
      await restricted.set('k', 'x');
      await wait.held();
      await wait.held();
      expect(warnings).toHaveLength(1);
      expect(await waits()).toBe(before);
    } finally {
      restricted.disconnect();
    }
  });
});
