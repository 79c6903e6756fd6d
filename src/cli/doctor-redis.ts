import type { RedisConfig } from '../config';
import { REDIS_CHECK } from '../infra/logger';
import {
  closeRedis,
  createRedis,
  isCluster,
  pingRedis,
  primaries,
  type ConnectorConnection,
} from '../redis/redis';
import { fail, ok, warn, type Finding } from './doctor-findings';
import {
  evictionPolicy,
  oldestVersion,
  persistence,
  readInfo,
  version,
  type Info,
} from './doctor-redis-settings';

/** How long doctor waits for Redis to answer: an operator is waiting, and nothing retries. */
const CONNECT_TIMEOUT_MS = 3000;

const SUBJECT = 'redis';

export interface RedisReport {
  reachable: boolean;
  findings: Finding[];
}

/** Redis as an operator checks it: one attempt, short wait; `shown` hides the password. */
export async function checkRedis(
  config: RedisConfig,
  shown: string,
  production: boolean,
): Promise<RedisReport> {
  const connected = await connectOnce(config);
  if ('reason' in connected) {
    const { reason } = connected;
    const refused = /WRONGPASS|NOAUTH|invalid password|invalid username/i.test(reason);
    return {
      reachable: false,
      findings: [
        refused
          ? fail(
              SUBJECT,
              `Redis at REDIS_URL ${shown} refused its user or password (${reason})`,
              'correct the user and password in REDIS_URL',
            )
          : fail(SUBJECT, `no answer at REDIS_URL ${shown} (${reason})`, REDIS_CHECK),
      ],
    };
  }
  try {
    return { reachable: true, findings: await inspect(connected.redis, shown, production) };
  } finally {
    await closeRedis(connected.redis);
  }
}

/** One connection, settled by its first answer or the deadline; its later errors are dropped. */
async function connectOnce(
  config: RedisConfig,
): Promise<{ redis: ConnectorConnection } | { reason: string }> {
  const redis = createRedis(config, 'producer', 'connector-doctor');
  const reason = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(
      () => resolve(`nothing answered within ${CONNECT_TIMEOUT_MS / 1000} s`),
      CONNECT_TIMEOUT_MS,
    );
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    redis.on('error', (error: Error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
  });
  if (reason === undefined) return { redis };
  await closeRedis(redis);
  return { reason };
}

async function inspect(
  redis: ConnectorConnection,
  shown: string,
  production: boolean,
): Promise<Finding[]> {
  const nodes = primaries(redis);
  const infos = await Promise.all(
    nodes.map((node) => node.info().then(readInfo, (error: Error) => error)),
  );
  const refused = infos.find((info): info is Error => info instanceof Error);
  if (refused) {
    return [
      ok(SUBJECT, `REDIS_URL ${shown} answers`),
      warn(
        SUBJECT,
        `INFO is refused (${refused.message}): its settings cannot be read`,
        "allow INFO (and WAIT) for REDIS_URL's user: the connector reads maxmemory-policy and its replicas with them",
      ),
    ];
  }
  const read = infos as Info[];
  const oldest = oldestVersion(read);
  const server = oldest === undefined ? 'Redis' : `Redis ${oldest}`;
  return [
    ...(await reachability(redis, `REDIS_URL ${shown} answers: ${server}`, read)),
    ...(oldest === undefined ? [] : version(oldest)),
    await evictionPolicy(redis, production),
    ...persistence(read, production),
  ];
}

/** It answers, in which topology, and the node REDIS_URL reaches takes writes. */
async function reachability(
  redis: ConnectorConnection,
  answers: string,
  infos: Info[],
): Promise<Finding[]> {
  const pong = await pingRedis(redis, CONNECT_TIMEOUT_MS);
  if (isCluster(redis)) return clusterReachability(redis, pong, answers, infos.length);
  const [info = new Map<string, string>()] = infos;
  const sentinel = redis.options.sentinels?.length ? redis.options.name : undefined;
  const replicas = Number(info.get('connected_slaves') ?? 0);
  if (!pong) return [fail(SUBJECT, `${answers}, but PING went unanswered`, REDIS_CHECK)];
  if (info.get('role') === 'slave') {
    return [
      fail(
        SUBJECT,
        `${answers}, a replica (read-only): every write of the connector fails`,
        'point REDIS_URL at the primary, or use redis+sentinel:// so the connector follows it',
      ),
    ];
  }
  if (sentinel === undefined) return [ok(SUBJECT, `${answers}, one server`)];
  const found = `${answers}, the primary of "${sentinel}" with ${replicas} replica(s)`;
  return replicas > 0
    ? [ok(SUBJECT, found)]
    : [warn(SUBJECT, found, 'connect a replica (replicaof): Sentinel has none to promote')];
}

/** A Cluster: every slot has a primary (its PING), and each primary a replica. */
async function clusterReachability(
  redis: ConnectorConnection,
  pong: boolean,
  answers: string,
  primaries: number,
): Promise<Finding[]> {
  const replicas = await clusterReplicas(redis);
  const found = `${answers}, a Cluster of ${primaries} primaries and ${replicas} replicas`;
  if (!pong) {
    return [
      fail(
        SUBJECT,
        `${found}, but cluster_state is not ok (some slot has no primary)`,
        'check the cluster: redis-cli --cluster check <one of its nodes>',
      ),
    ];
  }
  if (replicas > 0) return [ok(SUBJECT, found)];
  const fix = 'add a replica to each primary: without one, a node lost is its slots lost';
  return [warn(SUBJECT, found, fix)];
}

/** The replicas a Cluster's CLUSTER NODES lists that are not failing. */
async function clusterReplicas(redis: ConnectorConnection): Promise<number> {
  const nodes = String(await redis.cluster('NODES').catch(() => ''));
  return nodes.split('\n').filter((line) => {
    const flags = (line.split(' ')[2] ?? '').split(',');
    return flags.includes('slave') && !flags.some((flag) => flag.startsWith('fail'));
  }).length;
}
