import { Writable } from 'node:stream';
import { connectionErrorLogger, createLogger, redisLocation } from '../../../src/infra/logger';

function sink(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the logger', () => {
  it('does no work for a level it drops: the fields are never read, let alone formatted', () => {
    const out = sink();
    const logger = createLogger({ level: 'warn', format: 'json', secrets: [], stream: out.stream });
    let reads = 0;
    const fields = {
      get expensive() {
        reads += 1;
        return 'x';
      },
    };
    logger.info('dropped', fields);
    logger.http('dropped', fields);
    logger.log('debug', 'dropped', fields);
    logger.child({ part: 'c' }).info('dropped', fields);
    expect(reads).toBe(0);
    expect(out.lines()).toEqual([]);
  });

  it('still writes the levels it keeps, children with their fields, secrets redacted', () => {
    const out = sink();
    const logger = createLogger({
      level: 'info',
      format: 'json',
      secrets: ['hunter2-secret'],
      stream: out.stream,
      component: 'api',
    });
    logger.info('kept', { note: 'password is hunter2-secret' });
    logger.log('warn', 'kept too');
    logger.child({ part: 'c' }).warn('from a child');
    logger.debug('dropped');
    expect(out.lines()).toEqual([
      expect.objectContaining({
        level: 'info',
        message: 'kept',
        component: 'api',
        note: 'password is [redacted]',
      }),
      expect.objectContaining({ level: 'warn', message: 'kept too' }),
      expect.objectContaining({ level: 'warn', message: 'from a child', part: 'c' }),
    ]);
  });
});

describe("the Redis connections' one voice", () => {
  it('says an error once for every connection together, naming REDIS_URL without its password', () => {
    const out = sink();
    const logger = createLogger({ level: 'info', format: 'json', secrets: [], stream: out.stream });
    redisLocation(logger, 'redis://:s3cret-pw@10.0.0.5:6390/0');
    const producer = connectionErrorLogger(logger, { redis: 'producer' });
    const queue = connectionErrorLogger(logger, { queue: 'checkout' });
    const refused = new Error('connect ECONNREFUSED 10.0.0.5:6390');
    producer(refused);
    queue(refused);
    producer(refused);
    producer(new Error('Connection is closed.'));
    const lines = out.lines();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      message: 'connection error',
      redis: 'producer',
      errMessage: 'connect ECONNREFUSED 10.0.0.5:6390',
      redisUrl: 'redis://:***@10.0.0.5:6390/0',
      check: expect.stringContaining('REDIS_URL'),
    });
    expect(JSON.stringify(lines)).not.toContain('s3cret-pw');
    expect(lines[1]).toMatchObject({ errMessage: 'Connection is closed.' });
  });

  it.each([
    [
      'redis+sentinel://:s3cret-pw@10.0.0.5:26379,10.0.0.6:26379/mymaster',
      'redis+sentinel://:***@10.0.0.5:26379,10.0.0.6:26379/mymaster',
    ],
    [
      'rediss+cluster://app:s3cret-pw@10.0.0.5:6379,10.0.0.6:6379',
      'rediss+cluster://app:***@10.0.0.5:6379,10.0.0.6:6379',
    ],
    ['redis://10.0.0.5:6390', 'redis://10.0.0.5:6390'],
  ])('names a Sentinel or Cluster REDIS_URL too: %s', (url, said) => {
    const out = sink();
    const logger = createLogger({ level: 'info', format: 'json', secrets: [], stream: out.stream });
    redisLocation(logger, url);
    connectionErrorLogger(logger, { redis: 'producer' })(new Error('connect ECONNREFUSED'));
    expect(out.lines()[0]).toMatchObject({ redisUrl: said });
    expect(JSON.stringify(out.lines())).not.toContain('s3cret-pw');
  });

  it('says it again after the quiet time, with what it left out and who met it', () => {
    const out = sink();
    const logger = createLogger({ level: 'info', format: 'json', secrets: [], stream: out.stream });
    const producer = connectionErrorLogger(logger, { redis: 'producer' }, 0);
    const worker = connectionErrorLogger(logger, { worker: 'checkout' }, 60_000);
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:6390');
    worker(refused);
    worker(refused);
    // The producer's listener has no quiet time: it speaks for everyone, with the count.
    producer(refused);
    expect(out.lines()).toHaveLength(2);
    expect(out.lines()[1]).toMatchObject({
      redis: 'producer',
      repeatsLeftOut: 1,
      metBy: ['worker checkout'],
    });
  });
});

describe('the pretty format', () => {
  it('writes no colour codes where the output is not a terminal (a file, a pipe)', () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger({ level: 'info', format: 'pretty', secrets: [], stream });
    logger.info('checkout requested', { serviceId: 1001 });
    const text = chunks.join('');
    expect(text).toMatch(/ info checkout requested \{"serviceId":1001\}/);
    // No escape character at all (ANSI colours start with ESC, U+001B).
    expect(text.includes(String.fromCharCode(27))).toBe(false);
  });
});
