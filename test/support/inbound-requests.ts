import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { PAGE_PATHS } from '../../src/http/public-paths';
import { scanPrimaries, type RedisCommands } from '../../src/redis/redis';

/** One request as it goes on the wire: any method, path, headers and body. */
export interface InboundRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The longest body a failure's report shows whole; a longer one is cut (its length said). */
const SHOWN_BODY_CHARS = 2000;

/**
 * `req` as fast-check reports a failure: the body as text (base64 when it is no UTF-8), not a
 * list of bytes. The seed and path fast-check prints replay it exactly.
 */
export function readable(req: InboundRequest): InboundRequest {
  const text = req.body.toString('utf8');
  const shown = Buffer.from(text, 'utf8').equals(req.body)
    ? text
    : `base64:${req.body.toString('base64')}`;
  const body =
    shown.length > SHOWN_BODY_CHARS
      ? `${shown.slice(0, SHOWN_BODY_CHARS)}… (${req.body.length} bytes)`
      : shown;
  const { method, path, headers } = req;
  return Object.assign(req, {
    [fc.toStringMethod]: () => JSON.stringify({ method, path, headers, body }),
  });
}

export interface Answer {
  status: number;
  type: string;
  body: string;
  /** The server closed the connection before a whole answer came (a body it refused). */
  reset?: string;
}

/** Sends exactly what it is given (no client normalising); a reset is an answer of its own. */
export function send(baseUrl: string, req: InboundRequest): Promise<Answer> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Answer) => {
      if (!settled) resolve(answer);
      settled = true;
    };
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.path,
        // A chunked request (its own Transfer-Encoding) gets no Content-Length beside it.
        headers:
          req.headers['transfer-encoding'] === undefined
            ? { ...req.headers, 'content-length': String(req.body.length) }
            : req.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', () => undefined);
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('close', () => {
          if (!res.complete)
            done({ status: res.statusCode ?? 0, type: '', body: '', reset: 'cut' });
        });
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      done({ status: 0, type: '', body: '', reset: error.code ?? error.message }),
    );
    outgoing.end(req.body);
  });
}

/** An answer as read off the wire: the status line's code, the headers (lower-case), the body. */
export interface RawAnswer {
  /** The status line as sent, e.g. `HTTP/1.1 400 Bad Request`. */
  statusLine: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `text` on a new connection exactly as given (no Host added, no header normalised) and
 * reads one answer: until its Content-Length is in, or the server closes.
 */
export function exchangeRaw(baseUrl: string, text: string): Promise<RawAnswer> {
  const port = Number(new URL(baseUrl).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = Buffer.alloc(0);
    const parse = (): RawAnswer | undefined => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const [statusLine = '', ...lines] = received
        .subarray(0, end)
        .toString('latin1')
        .split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = received.subarray(end + 4);
      const length = Number(headers['content-length'] ?? Number.NaN);
      if (!socket.destroyed && !(body.length >= length)) return undefined;
      return {
        statusLine,
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: body.toString('utf8'),
      };
    };
    const finish = (): void => {
      const answer = parse();
      if (!answer) return;
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      finish();
    });
    socket.on('close', () => {
      const answer = parse();
      if (answer) resolve(answer);
      else reject(new Error(`the connection closed without an answer: ${received.toString()}`));
    });
    socket.on('error', reject);
  });
}

/** Ids a hostile client might try: empty, unicode, NUL, escapes that do not decode, very long. */
export const hostileId = fc.oneof(
  fc.constantFrom(
    '',
    '%00',
    'chk_%00',
    '%ZZ',
    '%E0%A4%A',
    '..%2F..%2Fetc',
    'chk_000000000000000000000000',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent),
  fc.integer({ min: 1, max: 5000 }).map((n) => 'x'.repeat(n)),
);

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** Bodies: JSON of any shape, text, bytes, forms, deep nesting, and a few far over the limits. */
export const hostileBody: fc.Arbitrary<Buffer> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v))),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        service_id: fc.oneof(
          fc.integer(),
          fc.double(),
          fc.string({ unit: 'binary', maxLength: 20 }),
          fc.constantFrom('1001', ' 1001 ', '1e3', '0x10', '\u0000', '-1', '99999999999999999999'),
          fc.array(fc.integer(), { maxLength: 3 }),
          fc.constant(null),
        ),
      })
      .map((v) => Buffer.from(JSON.stringify(v))),
  },
  {
    weight: 2,
    arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => Buffer.from(s)),
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: 'grapheme', maxLength: 50 })
      .map((s) => Buffer.from(`service_id=${encodeURIComponent(s)}&a[b]=c`)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 40_000 }).map((d) => Buffer.from(nested(d))) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 10_000 }).map((d) => Buffer.from(nestedObject(d))),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(90_000, 120_000, 300_000, 1_200_000)
      .map((n) => Buffer.alloc(n, 0x61)),
  },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
);

export const hostileContentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=klingon',
    'application/x-www-form-urlencoded',
    'text/plain',
    'text/xml',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    '*/*',
    '',
  ),
  fc.stringMatching(/^[a-z]{1,8}\/[a-z+.-]{1,12}$/),
);

export const hostileEncoding = fc.constantFrom(
  undefined,
  undefined,
  undefined,
  'gzip',
  'deflate',
  'br',
  'identity',
  'x-nonsense',
);

export const hostileMethod = fc.constantFrom(
  'GET',
  'POST',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PROPFIND',
);

/**
 * Paths whose answers may be HTML: the pages a customer's or a shop owner's browser opens
 * (src/http/public-paths.ts), whose own errors are pages too (CONTRACT "HTTP endpoints").
 */
export function isPagePath(path: string): boolean {
  return PAGE_PATHS.some((page) => path.startsWith(`${page}/`));
}

/**
 * Whether `path` (query aside) is one of the pages a browser GETs, by its route's form: the return,
 * the sandbox's and the API Pix's payment pages, a connect link's page and the providers' callbacks.
 */
export function isPageRoute(path: string): boolean {
  const [route = ''] = path.split('?');
  return PAGE_ROUTES.some((form) => form.test(route));
}

const PAGE_ROUTES = [
  /^\/return\/[^/]+$/,
  /^\/sandbox\/checkout\/[^/]+$/,
  /^\/connect\/[^/]+$/,
  /^\/connect\/(mercadopago\/callback|stripe\/return|stripe\/refresh)$/,
  /^\/pix\/(?!assets$)[^/]+$/,
];

/**
 * Every key under a prefix with a digest of its value (DUMP), rate-limit counters aside: equal
 * snapshots mean nothing was written.
 */
export async function stateSnapshot(
  redis: RedisCommands,
  prefix: string,
): Promise<Map<string, string>> {
  const keys: string[] = [];
  // Every key is under a hash tag that begins with the prefix (src/redis/keyspace.ts).
  for await (const batch of scanPrimaries(redis, `{${prefix}:*`, 1000)) {
    keys.push(...batch.filter((key) => !key.startsWith(`{${prefix}:rl}`)));
  }
  keys.sort();
  // All at once: one round trip's wait, not one per key.
  const values = await Promise.all(keys.map((key) => redis.dumpBuffer(key)));
  const snapshot = new Map<string, string>();
  keys.forEach((key, i) => {
    snapshot.set(
      key,
      createHash('sha256')
        .update(values[i] ?? Buffer.alloc(0))
        .digest('hex'),
    );
  });
  return snapshot;
}

/** The keys `which` picks that one snapshot has and the other has not, or has otherwise. */
export function changedKeys(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  which: (key: string) => boolean = () => true,
): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => which(key) && before.get(key) !== after.get(key)).sort();
}

/** `stateSnapshot` as one text, to compare. */
export async function stateDigest(redis: RedisCommands, prefix: string): Promise<string> {
  const snapshot = await stateSnapshot(redis, prefix);
  return [...snapshot].map(([key, value]) => `${key} ${value}`).join('\n');
}

/** Resident memory of a process, from /proc (Linux), in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}
