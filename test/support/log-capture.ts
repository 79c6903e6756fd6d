import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/infra/logger';

export interface CapturedLog {
  logger: Logger;
  /** Everything written so far, one JSON line per entry. */
  text(): string;
  entries(): Record<string, unknown>[];
}

/** A real logger writing JSON lines into memory, so a test can read what was logged. */
export function captureLog(options: { level?: string; secrets?: string[] } = {}): CapturedLog {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger({
    level: options.level ?? 'debug',
    format: 'json',
    secrets: options.secrets ?? [],
    stream,
  });
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    entries: () =>
      text()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
