import { Writable } from 'node:stream';
import { createLogger } from '../../src/infra/logger';

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
