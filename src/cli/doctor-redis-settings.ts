import { evictionRisk, readEvictionPolicy } from '../redis/redis-safety';
import type { ConnectorConnection } from '../redis/redis';
import { fail, ok, warn, type Finding } from './doctor-findings';

/** BullMQ's bounds (RedisConnection.minimumVersion, recommendedMinimumVersion). */
const BULLMQ_MINIMUM = '5.0.0';
const BULLMQ_RECOMMENDED = '6.2.0';

const SUBJECT = 'redis';

export type Info = Map<string, string>;

export function readInfo(text: string): Info {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

export function oldestVersion(infos: Info[]): string | undefined {
  return infos
    .map((info) => info.get('redis_version'))
    .filter((found) => found !== undefined)
    .sort(compareVersions)[0];
}

/** The oldest primary's version against BullMQ's bounds; nothing to say when it is recent. */
export function version(oldest: string): Finding[] {
  if (compareVersions(oldest, BULLMQ_MINIMUM) < 0) {
    return [
      fail(
        SUBJECT,
        `Redis ${oldest}: BullMQ refuses a server older than ${BULLMQ_MINIMUM}`,
        `upgrade Redis to ${BULLMQ_RECOMMENDED} or later`,
      ),
    ];
  }
  if (compareVersions(oldest, BULLMQ_RECOMMENDED) < 0) {
    return [
      warn(
        SUBJECT,
        `Redis ${oldest}: BullMQ recommends ${BULLMQ_RECOMMENDED} or later`,
        `upgrade Redis to ${BULLMQ_RECOMMENDED} or later`,
      ),
    ];
  }
  return [];
}

function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** `maxmemory-policy`, read and judged as the start reads and judges it (redis/redis-safety.ts). */
export async function evictionPolicy(
  redis: ConnectorConnection,
  production: boolean,
): Promise<Finding> {
  const policy = await readEvictionPolicy(redis);
  const risk = evictionRisk(policy, production);
  if (risk === 'safe') return ok(SUBJECT, 'maxmemory-policy noeviction');
  if (risk === 'unknown') {
    return warn(
      SUBJECT,
      'maxmemory-policy could not be read (INFO memory)',
      'make sure Redis is set to noeviction',
    );
  }
  const refused = risk === 'refused' ? '; the server refuses to start on it in production' : '';
  const found = `maxmemory-policy ${policy}: Redis may evict keys, and BullMQ loses queued jobs (finish and cancel notifications) with them${refused}`;
  const fix = `set maxmemory-policy noeviction (now ${policy}; a managed service sets it in its parameter group)`;
  return risk === 'refused' ? fail(SUBJECT, found, fix) : warn(SUBJECT, found, fix);
}

/** Append-only persistence (docs/redis.md, "The settings Redis must have"): advice, in production. */
export function persistence(infos: Info[], production: boolean): Finding[] {
  const aof = infos.map((info) => info.get('aof_enabled'));
  if (aof.includes(undefined)) return [];
  if (aof.every((enabled) => enabled === '1')) return [ok(SUBJECT, 'appendonly yes')];
  const found = 'appendonly no: what is queued is lost if Redis restarts';
  return production
    ? [
        warn(
          SUBJECT,
          found,
          'set appendonly yes and appendfsync everysec where the service offers it (replicas keep the data through the loss of a node)',
        ),
      ]
    : [ok(SUBJECT, `${found} (fine outside production)`)];
}
