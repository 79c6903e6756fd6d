/**
 * REDIS_URL's three forms (CONTRACT "Redis topologies"), read once, here:
 *
 *   redis://[user:password@]host:port[/db]            one server (rediss:// with TLS)
 *   redis+sentinel://[user:password@]h1:p1,h2:p2,.../<master-name>[/db]
 *                                                     the Sentinels to ask for the primary
 *   redis+cluster://[user:password@]h1:p1,h2:p2,...   seed nodes of a Redis Cluster
 *
 * The user and password are the data nodes'; a Sentinel's own password is
 * REDIS_SENTINEL_PASSWORD. `rediss+sentinel://` and `rediss+cluster://` use TLS.
 */

export interface RedisNode {
  host: string;
  port: number;
}

interface Credentials {
  username: string | undefined;
  password: string | undefined;
  tls: boolean;
}

export type RedisTopology =
  | ({ kind: 'single'; node: RedisNode; db: number } & Credentials)
  | ({ kind: 'sentinel'; sentinels: RedisNode[]; name: string; db: number } & Credentials)
  | ({ kind: 'cluster'; nodes: RedisNode[] } & Credentials);

/** A REDIS_URL that does not read; `problem` says what is wrong, never the password. */
export class RedisUrlError extends Error {
  constructor(readonly problem: string) {
    super(problem);
  }
}

const DEFAULT_PORT = { single: 6379, sentinel: 26379, cluster: 6379 } as const;

const FORM = /^(rediss?)(?:\+(sentinel|cluster))?:\/\/(?:([^@/]*)@)?([^/?#]*)(?:\/([^?#]*))?$/;

/** One `host[:port]` (an IPv6 address in brackets). */
function nodeOf(text: string, defaultPort: number): RedisNode {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(text);
  if (!match?.[1]) throw new RedisUrlError(`"${text}" is not a host or host:port`);
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port < 1 || port > 65535) throw new RedisUrlError(`port ${port} is out of range`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function dbOf(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,2}$/.test(text)) throw new RedisUrlError(`"/${text}" is not a database number`);
  return Number(text);
}

function decoded(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    throw new RedisUrlError('the user or password is not URL-encoded properly');
  }
}

function credentialsOf(scheme: string | undefined, userinfo: string | undefined): Credentials {
  const colon = userinfo === undefined ? -1 : userinfo.indexOf(':');
  return {
    username: decoded(colon < 0 ? userinfo : userinfo?.slice(0, colon)),
    password: decoded(colon < 0 ? undefined : userinfo?.slice(colon + 1)),
    tls: scheme === 'rediss',
  };
}

function topologyOf(
  kind: RedisTopology['kind'],
  nodes: RedisNode[],
  path: string | undefined,
  credentials: Credentials,
): RedisTopology {
  const segments = path === undefined ? [] : path.split('/');
  switch (kind) {
    case 'single': {
      if (nodes.length > 1) {
        throw new RedisUrlError(
          'names several hosts: use redis+sentinel:// or redis+cluster:// for more than one',
        );
      }
      if (segments.length > 1) throw new RedisUrlError(`"/${path}" is not a database number`);
      return { kind, node: nodes[0] as RedisNode, db: dbOf(segments[0]), ...credentials };
    }
    case 'sentinel': {
      const name = decoded(segments[0]);
      if (!name) throw new RedisUrlError('names no primary: end it with /<master-name>');
      if (segments.length > 2) throw new RedisUrlError(`"/${path}" is not /<master-name>[/db]`);
      return { kind, sentinels: nodes, name, db: dbOf(segments[1]), ...credentials };
    }
    case 'cluster': {
      if (segments.some((segment) => segment !== '')) {
        throw new RedisUrlError('a cluster has no database number (every key is in db 0)');
      }
      return { kind, nodes, ...credentials };
    }
  }
}

/** Reads REDIS_URL; throws RedisUrlError saying what is wrong. */
export function parseRedisUrl(url: string): RedisTopology {
  const match = FORM.exec(url.trim());
  if (!match) {
    throw new RedisUrlError(
      'must be redis://host:port, redis+sentinel://host:port,.../<master-name> or redis+cluster://host:port,... (rediss for TLS)',
    );
  }
  const [, scheme, form, userinfo, hosts = '', path] = match;
  const kind = form === 'sentinel' ? 'sentinel' : form === 'cluster' ? 'cluster' : 'single';
  const credentials = credentialsOf(scheme, userinfo);
  const nodes = hosts
    .split(',')
    .filter((part) => part !== '')
    .map((part) => nodeOf(part, DEFAULT_PORT[kind]));
  if (nodes.length === 0) throw new RedisUrlError('names no host');
  return topologyOf(kind, nodes, path, credentials);
}

/** The URL with its password replaced, fit for a log line or an error. */
export function redactedRedisUrl(url: string): string {
  return url.replace(/(\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}
