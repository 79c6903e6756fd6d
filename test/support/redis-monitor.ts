import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** One command as MONITOR reported it: its name and arguments, and the client that sent it. */
export interface Monitored {
  args: string[];
  source: string;
}

export interface RedisMonitor {
  /** Calls `listener` with every command Redis runs from now on (other clients' included). */
  onCommand(listener: (command: Monitored) => void): void;
  /**
   * Resolves once every command Redis ran before this call has been reported: sends an ECHO of
   * a marker through `client` and waits for it to come through (MONITOR reports in order).
   */
  caughtUp(client: { echo(message: string): Promise<string> }): Promise<void>;
  /** Drops the connection; resolves once the socket is closed. */
  close(): Promise<void>;
}

/**
 * MONITOR over a socket of its own, read by hand, rather than ioredis's `monitor()`. ioredis
 * enters its "monitoring" state a tick after MONITOR's +OK is read; on a busy Redis the first
 * reported command often comes in the same read, is taken for the reply to a command never sent
 * ("Command queue state error", redis/ioredis#1981, taskforcesh/bullmq#2505), and `monitor()`
 * rejects with its connection left open, reconnecting for good once the Redis is stopped.
 */
export async function monitorRedis(url: string): Promise<RedisMonitor> {
  const target = new URL(url);
  if (target.protocol !== 'redis:') throw new Error(`monitorRedis reads redis:// only, not ${url}`);
  const socket = connect(Number(target.port || 6379), target.hostname || '127.0.0.1');
  await once(socket, 'connect');
  const password = decodeURIComponent(target.password);
  const user = decodeURIComponent(target.username);
  if (password) socket.write(command(user ? ['AUTH', user, password] : ['AUTH', password]));
  socket.write(command(['MONITOR']));
  const listeners: ((monitored: Monitored) => void)[] = [];
  const started = readLines(socket, password ? 2 : 1, (line) => {
    const monitored = parseMonitorLine(line);
    if (monitored) for (const listener of listeners) listener(monitored);
  });
  try {
    await started;
  } catch (error) {
    socket.destroy();
    throw error;
  }
  let marks = 0;
  return {
    onCommand: (listener) => listeners.push(listener),
    caughtUp: async (client) => {
      const marker = `monitor-mark-${(marks += 1)}`;
      const seen = new Promise<void>((resolve) =>
        listeners.push(({ args }) => {
          if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) resolve();
        }),
      );
      await client.echo(marker);
      await seen;
    },
    close: async () => {
      if (socket.destroyed) return;
      const closed = once(socket, 'close');
      socket.destroy();
      await closed;
    },
  };
}

/** A command in RESP, as an array of bulk strings. */
function command(parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
}

/**
 * Reads the socket's lines: the first `okCount` must be +OK (the promise settles on them), every
 * line after goes to `onLine`.
 */
function readLines(socket: Socket, okCount: number, onLine: (line: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending = Buffer.alloc(0);
    let oks = 0;
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('the MONITOR connection closed before +OK')));
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
        const line = pending.subarray(0, end);
        pending = pending.subarray(end + 2);
        if (oks < okCount) {
          if (line.toString() !== '+OK') reject(new Error(`MONITOR refused: ${line.toString()}`));
          oks += 1;
          if (oks === okCount) resolve();
        } else {
          onLine(line);
        }
      }
    });
  });
}

/**
 * `+1795707634.113815 [0 127.0.0.1:50390] "evalsha" "79c6..." "3"`: the arguments are quoted,
 * with Redis's escapes (\" \\ \n \r \t \a \b and \xHH for any other byte).
 */
export function parseMonitorLine(line: Buffer): Monitored | undefined {
  const text = line.toString('latin1');
  const header = /^\+\d+\.\d+ \[\S+ ([^\]]+)\] /.exec(text);
  if (!header) return undefined;
  const args: string[] = [];
  let at = header[0].length;
  while (at < text.length && text[at] === '"') {
    const bytes: number[] = [];
    at += 1;
    while (at < text.length && text[at] !== '"') {
      if (text[at] === '\\') {
        const escape = text[at + 1];
        if (escape === 'x') {
          bytes.push(parseInt(text.slice(at + 2, at + 4), 16));
          at += 4;
          continue;
        }
        const simple: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8 };
        bytes.push(simple[escape ?? ''] ?? (escape ?? '').charCodeAt(0));
        at += 2;
        continue;
      }
      bytes.push(text.charCodeAt(at));
      at += 1;
    }
    args.push(Buffer.from(bytes).toString('utf8'));
    at += 2; // the closing quote and the space after it
  }
  return { args, source: header[1] ?? '' };
}
