import { ConfigError, queueConfig, readConfig } from '../../../src/config';
import { clusterOptions, redisOptions } from '../../../src/redis/redis';
import { parseRedisUrl, redactedRedisUrl, RedisUrlError } from '../../../src/redis/redis-url';

/** REDIS_URL's forms (CONTRACT "Redis topologies"), and what a bad one is told. */
describe('REDIS_URL', () => {
  it('reads one server, with credentials, a database and TLS', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2')).toEqual({
      kind: 'single',
      node: { host: '127.0.0.1', port: 6380 },
      db: 2,
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisUrl('rediss://app:p%40ss@redis.example.com')).toMatchObject({
      kind: 'single',
      node: { host: 'redis.example.com', port: 6379 },
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
  });

  it('reads the Sentinels and the primary they are asked for', () => {
    expect(parseRedisUrl('redis+sentinel://:secret@s1:26379,s2,[::1]:26380/mymaster/1')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'mymaster',
      db: 1,
      username: undefined,
      password: 'secret',
      tls: false,
    });
    const options = redisOptions(
      { url: 'rediss+sentinel://s1:26379,s2:26379/mymaster', sentinelPassword: 'sp' },
      'worker',
    );
    expect(options).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'mymaster',
      role: 'master',
      sentinelPassword: 'sp',
      enableTLSForSentinelMode: true,
      tls: {},
      maxRetriesPerRequest: null,
    });
    // Off: its disconnect on +switch-master can end a client that is reconnecting (src/redis/redis.ts).
    expect(options.failoverDetector).toBeUndefined();
  });

  it('reconnects and sends the command again on READONLY and LOADING, and only then', () => {
    const { reconnectOnError } = redisOptions('redis://127.0.0.1:6379', 'producer');
    expect(
      reconnectOnError?.(new Error("READONLY You can't write against a read only replica.")),
    ).toBe(2);
    expect(reconnectOnError?.(new Error('LOADING Redis is loading the dataset in memory'))).toBe(2);
    // A WAIT sent to a primary demoted since: reconnect to the primary and wait there.
    expect(
      reconnectOnError?.(
        new Error('ERR WAIT cannot be used with replica instances. Please also note'),
      ),
    ).toBe(2);
    expect(reconnectOnError?.(new Error('ERR unknown command'))).toBe(false);
  });

  it('builds a Cluster for redis+cluster://, reading from primaries and outliving a failover', () => {
    const topology = parseRedisUrl('rediss+cluster://app:pw@n1:7000,n2:7001');
    if (topology.kind !== 'cluster') throw new Error('not read as a cluster');
    const worker = clusterOptions(topology, 'worker', 'c');
    expect(worker).toMatchObject({
      scaleReads: 'master',
      enableAutoPipelining: false,
      enableOfflineQueue: true,
      redisOptions: { username: 'app', password: 'pw', tls: {}, maxRetriesPerRequest: null },
    });
    // Retried past a cluster-node-timeout of 15 s (Redis's default) plus the election.
    expect((worker.retryDelayOnFailover ?? 0) * (worker.maxRedirections ?? 0)).toBeGreaterThan(
      30_000,
    );
    // With TLS, the node is reached by the name the cluster gives (its certificate's).
    const looked: string[] = [];
    worker.dnsLookup?.('node-1.cache.example', (_error, address) => looked.push(address));
    expect(looked).toEqual(['node-1.cache.example']);
    const producer = clusterOptions(topology, 'producer', 'c');
    expect(producer).toMatchObject({ enableOfflineQueue: false, scaleReads: 'master' });
    expect(producer.redisOptions?.maxRetriesPerRequest).toBe(1);
    const plain = parseRedisUrl('redis+cluster://n1:7000');
    if (plain.kind !== 'cluster') throw new Error('not read as a cluster');
    expect(clusterOptions(plain, 'worker').dnsLookup).toBeUndefined();
  });

  it('reads a cluster’s seed nodes', () => {
    expect(parseRedisUrl('redis+cluster://n1:7000,n2:7001')).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
    });
  });

  it.each([
    ['http://localhost:6379', 'must be redis://'],
    ['redis://', 'names no host'],
    ['redis://a:6379,b:6379', 'use redis+sentinel:// or redis+cluster://'],
    ['redis://host:99999', 'port 99999 is out of range'],
    ['redis://host:6379/x', '"/x" is not a database number'],
    ['redis+sentinel://s1:26379', 'names no primary'],
    ['redis+sentinel://s1:26379/m/1/2', 'is not /<master-name>[/db]'],
    ['redis+cluster://n1:7000/3', 'a cluster has no database number'],
    ['redis://ho st:6379', 'is not a host or host:port'],
  ])('refuses %s, saying what is wrong', (url, problem) => {
    expect(() => parseRedisUrl(url)).toThrow(RedisUrlError);
    expect(() => parseRedisUrl(url)).toThrow(problem);
  });

  it('is a configuration error naming the problem, never the password', () => {
    const load = (url: string) => () =>
      readConfig(queueConfig, { REDIS_URL: url, QUEUE_PREFIX: 'c' });
    expect(load('redis+sentinel://:hunter2@s1:26379')).toThrow(ConfigError);
    try {
      load('redis+sentinel://:hunter2@s1:26379')();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'REDIS_URL: names no primary: end it with /<master-name>',
      ]);
      expect(String((error as ConfigError).problems)).not.toContain('hunter2');
    }
    expect(
      readConfig(queueConfig, { REDIS_URL: 'rediss+cluster://n1:7000,n2:7000', QUEUE_PREFIX: 'c' })
        .redis.url,
    ).toBe('rediss+cluster://n1:7000,n2:7000');
    expect(
      readConfig(queueConfig, {
        REDIS_URL: 'redis+sentinel://s1:26379/mymaster',
        QUEUE_PREFIX: 'c',
        REDIS_SENTINEL_PASSWORD: 'sp',
      }).redis,
    ).toEqual({ url: 'redis+sentinel://s1:26379/mymaster', prefix: 'c', sentinelPassword: 'sp' });
    expect(redactedRedisUrl('redis+sentinel://app:hunter2@s1:26379/m')).toBe(
      'redis+sentinel://app:***@s1:26379/m',
    );
  });
});
